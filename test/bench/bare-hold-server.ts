// A bare node:http server that never answers: the floor of row 5 (what a parked HTTP request on
// a keep-alive connection costs Node itself, with no framework, timer or waiter bookkeeping).
// Prints `{"url"}` on stdout once it listens; SIGTERM drops every connection and stops it.
import { createServer } from 'node:http';

const server = createServer(() => {
  // Held: the client gives up or the server stops.
});
server.requestTimeout = 0;
server.headersTimeout = 0;
server.keepAliveTimeout = 120_000;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
