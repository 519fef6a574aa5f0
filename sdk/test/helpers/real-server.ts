// A tiny real HTTP server on loopback for the kit's passthrough tests. Test-only.
import { createServer, type Server } from 'node:http';

export interface RealServer {
  url: string;
  /** Requests it answered, as `METHOD path`. */
  seen: string[];
  close(): Promise<void>;
}

/** Answers every request 200 `real <method> <path>` as text. */
export async function startRealServer(): Promise<RealServer> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`real ${req.method} ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
