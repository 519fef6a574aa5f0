import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ApiError, type ApiErrorBody } from './api-error.js';
import type { CorsPolicy } from './cors.js';

/**
 * How long a socket answered by {@link createClientErrorHandler} keeps reading (and dropping)
 * what the client still sends before it is destroyed, in ms. Closing a socket with unread data
 * makes the kernel send a reset, which can discard the answer before the client reads it.
 */
const LINGER_MS = 2000;

/** Sockets already answered: Node may report several errors for one broken request. */
const answered = new WeakSet<Duplex>();

/** Requests answered with 408 while their body was still arriving: never handled afterwards. */
const timedOut = new WeakSet<IncomingMessage>();

/** Node's error codes for requests it could not read, mapped to the ApiError to answer. */
function classify(err: Error & { code?: string }): [number, string, string] {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'request_too_large', 'The request headers exceed the size limit'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request_timeout', 'The request did not arrive whole in time'];
    default:
      return [400, 'invalid_request', 'The request is not valid HTTP'];
  }
}

/**
 * Writes a whole HTTP/1.1 answer with an ApiError body straight to `socket`, half-closes it and
 * keeps draining what the client still sends for {@link LINGER_MS}, so the answer is read
 * rather than lost to a reset.
 */
function answerOnSocket(
  socket: Duplex,
  status: number,
  body: ApiErrorBody,
  headers: Record<string, string>,
): void {
  answered.add(socket);
  const json = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  if (socket.writable) socket.end(`${lines.join('\r\n')}\r\n\r\n${json}`);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.resume();
}

/**
 * Fastify `clientErrorHandler`: answers requests Node cannot read (bad request lines, oversized
 * headers, request timeouts) with an ApiError body and the CORS headers, unless an answer is
 * already on its way (then the socket is only closed). A request timed out while its body was
 * arriving is marked so the server never handles it afterwards.
 *
 * @example
 * Fastify({ clientErrorHandler: createClientErrorHandler(cors) });
 */
export function createClientErrorHandler(
  cors: CorsPolicy,
): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (inFlight?.headersSent) {
      // Half an answer is on the wire: nothing valid can follow it.
      socket.destroy();
      return;
    }
    const [status, error, description] = classify(err);
    if (inFlight && status === 408) timedOut.add(inFlight.req);
    answerOnSocket(
      socket,
      status,
      { error, error_description: description },
      cors.headersFor(inFlight?.req.headers.origin, inFlight?.req.url),
    );
  };
}

/**
 * Makes the answers Node or Fastify would give in their own shape ApiErrors with CORS headers,
 * on the root instance (call it before registering the services):
 *
 * - `CONNECT` (Node would close the socket without a word): 405 `method_not_allowed`.
 * - `Expect` other than `100-continue` (Node: an empty 417): 417 `expectation_failed`.
 * - HTTP/1.1 without `Host` (Node: an empty 400; the server is built with `requireHostHeader`
 *   off so the request reaches this hook): 400 `invalid_request`.
 * - Requests while the server closes (Fastify: its own 503 body): 503 `service_unavailable`.
 * - A request answered 408 by the client-error handler whose body completes later: dropped.
 */
export function installNodeAnswers(app: FastifyInstance, cors: CorsPolicy): void {
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    answerOnSocket(
      socket,
      405,
      { error: 'method_not_allowed', error_description: 'CONNECT is not supported' },
      cors.headersFor(request.headers.origin, request.url),
    );
  });
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify({
      error: 'expectation_failed',
      error_description: 'Only Expect: 100-continue is supported',
    });
    response.writeHead(417, {
      'content-type': 'application/json',
      ...cors.headersFor(request.headers.origin, request.url),
    });
    response.end(body);
  });

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      reply.header('connection', 'close');
      throw new ApiError(503, 'service_unavailable', 'The server is shutting down');
    }
    if (request.raw.httpVersion === '1.1' && !request.raw.headers.host) {
      throw new ApiError(400, 'invalid_request', 'An HTTP/1.1 request needs a Host header');
    }
  });
  app.addHook('preValidation', async (request, reply) => {
    // Already answered 408 on the socket; handling it now would act on a refused request.
    if (timedOut.has(request.raw)) return reply.hijack();
  });
}

/**
 * Lets the client read a refusal sent before its body was read (413 `request_too_large` from
 * `Content-Length` alone, or a parser error half-way), instead of losing it to a reset.
 *
 * Fastify answers such a refusal with `Connection: close`, and Node then closes the socket while
 * the client is still sending: the unread bytes make the kernel send a reset, and the client
 * sees EPIPE or ECONNRESET rather than the answer (a 2 MiB event batch did). Here the answer
 * keeps the connection, so Node reads and discards the rest of the body (its `_dump`) and the
 * client reads the ApiError once it has sent it all; the request timeout still bounds the wait.
 * Bodies announced over `maxDrainBytes` (or found over it while draining) are not read: those
 * connections close as before.
 *
 * @example
 * installBodyDrain(app, 16 * 1024 * 1024);
 */
export function installBodyDrain(app: FastifyInstance, maxDrainBytes: number): void {
  // A callback hook, not an async one: it runs on every answer, leases included.
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    // Only the refusals of a body (Fastify's parser errors); a shutdown's 503 closes as it says.
    const refusal =
      reply.statusCode === 400 || reply.statusCode === 413 || reply.statusCode === 415;
    if (raw.complete || !refusal || reply.getHeader('connection') !== 'close') {
      done(null, payload);
      return;
    }
    const announced = Number(raw.headers['content-length']);
    if (Number.isFinite(announced) && announced > maxDrainBytes) {
      done(null, payload);
      return;
    }
    reply.removeHeader('connection');
    if (!Number.isFinite(announced)) {
      // A chunked body over the bound is not drained to its end: the socket goes.
      let drained = 0;
      raw.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > maxDrainBytes) raw.socket.destroy();
      });
    }
    done(null, payload);
  });
}
