// Test helper: puts a built mock-server app on a free loopback port.
import type { FastifyInstance } from 'fastify';

/** Listens on 127.0.0.1 with a free port; resolves with the origin and port. */
export async function listenOnLoopback(
  app: FastifyInstance,
): Promise<{ origin: string; port: number }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { origin: `http://127.0.0.1:${port}`, port };
}
