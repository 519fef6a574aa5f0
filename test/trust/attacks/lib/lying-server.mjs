// A lying HTTP server in front of the mock server (a proxy, a load balancer, a captive portal, a
// hostile network): it forwards every request to the mock and hands the real answer to `lie`,
// which may replace it. The client is given the liar's URLs instead of the mock's.
import { createServer } from 'node:http';
import { Readable } from 'node:stream';

const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'host',
]);

/**
 * Starts the liar on a free loopback port in front of `origin` (the mock's `http://host:port`).
 * `lie({ method, path, headers, body, forward })` resolves `undefined` (the real answer passes)
 * or `{ status?, headers?, body }` where `body` is a string, a Buffer or an async iterable of
 * chunks; `forward()` resolves the real answer as `{ status, headers, body }` (body a Buffer).
 * Resolves `{ url(serviceUrl), close() }`: `url` maps a mock URL to the same path on the liar.
 */
export async function startLyingServer(origin, lie = async () => undefined) {
  const server = createServer(async (request, response) => {
    response.sendDate = false;
    try {
      const chunks = [];
      for await (const chunk of request) chunks.push(chunk);
      const body = Buffer.concat(chunks);
      const headers = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (!HOP_HEADERS.has(name)) headers[name] = value;
      }
      let real;
      const forward = async () => {
        if (real) return real;
        const answer = await fetch(`${origin}${request.url}`, {
          method: request.method,
          headers,
          body: body.length > 0 ? body : undefined,
        });
        const answerHeaders = {};
        answer.headers.forEach((value, name) => {
          if (!HOP_HEADERS.has(name)) answerHeaders[name] = value;
        });
        real = {
          status: answer.status,
          headers: answerHeaders,
          body: Buffer.from(await answer.arrayBuffer()),
        };
        return real;
      };
      const replaced = await lie({
        method: request.method,
        path: request.url,
        headers,
        body,
        forward,
      });
      const answer = replaced ?? (await forward());
      response.writeHead(answer.status ?? 200, answer.headers ?? {});
      if (typeof answer.body === 'string' || Buffer.isBuffer(answer.body)) {
        response.end(answer.body);
        return;
      }
      const stream = Readable.from(answer.body);
      stream.on('error', () => response.destroy());
      response.on('close', () => stream.destroy());
      stream.pipe(response);
    } catch (error) {
      response.destroy(error);
    }
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const liar = `http://127.0.0.1:${server.address().port}`;
  return {
    origin: liar,
    url: (serviceUrl) => serviceUrl.replace(origin, liar),
    close() {
      server.closeAllConnections();
      return new Promise((done) => server.close(() => done()));
    },
  };
}
