// A bare node:http server that answers every request with one RSA-2048 `crypto.sign` (a JWS-
// shaped token): the floor of row 1 for "HTTP plus one signature", with no framework, routing,
// auth or claims. Prints `{"url"}` on stdout once it listens; SIGTERM stops it.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const header = segment({ alg: 'RS256', kid: 'bare', typ: 'JWT' });

const server = createServer((request, response) => {
  const iat = Math.floor(Date.now() / 1000);
  const input = `${header}.${segment({ ItemA: true, sub: 'bench-user', url: request.url, iat, exp: iat + 28_800 })}`;
  const token = `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  response.writeHead(200, { 'content-type': 'application/jwt' });
  response.end(token);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
