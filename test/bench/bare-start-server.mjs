// A bare node:http server, the reference of bench row 7 (cold start): started the way the mock
// server's bin is (`node <file> --port 0`, plain JavaScript, no loader), it prints one JSON line
// once it listens and answers every request 200 with a small JSON body. SIGTERM stops it.
import { createServer } from 'node:http';

const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end('{"ok":true}');
});
server.listen({ port: 0, host: '127.0.0.1' }, () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
