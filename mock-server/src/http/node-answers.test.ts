import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../../test/helpers/listen.js';
import { type RawAnswer, sendRaw } from '../../test/helpers/raw-http.js';
import { buildApp } from '../app.js';
import { DEFAULT_WIRE_NAMES } from '../config/options.js';
import { corsPlugin } from '../plugins/cors-plugin.js';
import { installErrorHandling } from './api-error.js';
import { createCorsPolicy } from './cors.js';
import { installNodeAnswers } from './node-answers.js';

const ORIGIN = 'http://page.example.test';

/** An ApiError answer: JSON with only the spec's members, and the CORS headers. */
function expectApiError(answer: RawAnswer, status: number, error: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body);
  expect(body.error).toBe(error);
  for (const key of Object.keys(body)) {
    expect(['error', 'error_description', 'error_uri']).toContain(key);
  }
  expect(answer.headers.vary).toMatch(/Origin/);
  expect(answer.headers['access-control-allow-origin']).toBeDefined();
}

describe('answers Node or Fastify would give in their own shape, over a real socket', () => {
  let app: FastifyInstance;
  let port: number;
  let origin: string;

  beforeAll(async () => {
    // Short timeouts keep the slow-client cases quick; nothing below measures time.
    app = await buildApp({
      state: 'active',
      limits: { requestTimeoutMs: 400, keepAliveTimeoutMs: 300 },
    });
    ({ port, origin } = await listenOnLoopback(app));
  });
  afterAll(() => app.close());

  it('answers HTTP/1.1 without Host with a 400 ApiError', async () => {
    const answer = await sendRaw(
      port,
      `GET /idp/.well-known/jwks.json HTTP/1.1\r\nOrigin: ${ORIGIN}\r\nConnection: close\r\n\r\n`,
    );
    expectApiError(answer, 400, 'invalid_request');
    expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('answers CONNECT with a 405 ApiError instead of closing silently', async () => {
    const answer = await sendRaw(
      port,
      `CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\nOrigin: ${ORIGIN}\r\n\r\n`,
    );
    expectApiError(answer, 405, 'method_not_allowed');
  });

  it('answers an unknown Expect with a 417 ApiError instead of an empty one', async () => {
    const answer = await sendRaw(
      port,
      'POST /idp/token HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expectApiError(answer, 417, 'expectation_failed');
  });

  it('answers bytes that are not HTTP with a 400 ApiError', async () => {
    expectApiError(await sendRaw(port, 'NOT HTTP AT ALL\r\n\r\n'), 400, 'invalid_request');
    const smuggled = await sendRaw(
      port,
      'POST /idp/token HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    expectApiError(smuggled, 400, 'invalid_request');
  });

  it('answers a URL it cannot decode and an over-long path segment with 400, never 414', async () => {
    const badUrl = await sendRaw(
      port,
      `GET /events/get/%E0%A4%A HTTP/1.1\r\nHost: x\r\nOrigin: ${ORIGIN}\r\nConnection: close\r\n\r\n`,
    );
    expectApiError(badUrl, 400, 'invalid_request');
    const long = await fetch(`${origin}/events/get/${'%F0%9F%98%80'.repeat(700)}`, {
      headers: { origin: ORIGIN },
    });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ error: 'invalid_request' });
    expect(long.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('lets a client read the 431 of a 1 MB header rather than a reset', async () => {
    const viaFetch = await fetch(`${origin}/idp/.well-known/jwks.json`, {
      headers: { 'x-huge': 'y'.repeat(1024 * 1024) },
    });
    expect(viaFetch.status).toBe(431);
    expect(await viaFetch.json()).toMatchObject({ error: 'request_too_large' });
    // A raw client that keeps writing its whole header before it reads.
    const raw = await sendRaw(
      port,
      `GET /idp/.well-known/jwks.json HTTP/1.1\r\nHost: x\r\nX-Huge: ${'y'.repeat(1024 * 1024)}\r\n\r\n`,
    );
    expectApiError(raw, 431, 'request_too_large');
    expect(raw.error).toBeUndefined();
  });

  it('answers a body that never finishes with a 408 ApiError, and never stores it', async () => {
    const head =
      'POST /events/put HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Origin: ${ORIGIN}\r\nContent-Length: 60\r\n\r\n`;
    const start = '{"eventType":"Slow","eventSourceId":"slow-body"';
    const answer = await sendRaw(port, head + start, {
      onConnect: (socket) =>
        // The rest arrives only after the 408: the server must not act on it any more.
        socket.once('data', () => socket.end(`${',"x":1'.padEnd(60 - start.length - 1)}}`)),
    });
    expectApiError(answer, 408, 'request_timeout');
    expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
    const token = await (
      await app.inject({
        method: 'POST',
        url: '/idp/token',
        payload: { sub: 'r', claims: { '*': true } },
      })
    ).json().id_token;
    const feed = await app.inject({
      url: '/events/get/slow-body',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(feed.json().count).toBe(0);
  });

  it('answers headers that never finish with a 408 ApiError', async () => {
    const answer = await sendRaw(port, 'GET /idp/.well-known/jwks.json HTTP/1.1\r\nHost: x\r\n');
    expectApiError(answer, 408, 'request_timeout');
  });

  it('exempts a parked long poll from the request timeout', async () => {
    const token = (
      await app.inject({
        method: 'POST',
        url: '/idp/token',
        payload: { sub: 'r', claims: { '*': true } },
      })
    ).json().id_token as string;
    const poll = fetch(`${origin}/events/get/parked?after=0&maxWaitMs=10000`, {
      headers: { authorization: `Bearer ${token}` },
    });
    // Written after more than the request timeout has passed: the poll must still be parked.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const put = await app.inject({
      method: 'POST',
      url: '/events/put',
      payload: { eventType: 'Late', eventSourceId: 'parked' },
    });
    expect(put.statusCode).toBe(201);
    const res = await poll;
    expect(res.status).toBe(200);
    expect((await res.json()).count).toBe(1);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    // No Connection: close; the exchange ends only because the server closes the idle socket.
    const answer = await sendRaw(
      port,
      'GET /idp/.well-known/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    expect(answer.status).toBe(200);
    expect(answer.error).toBeUndefined();
  });

  it('still serves after all of that', async () => {
    expect((await fetch(`${origin}/main/.well-known/jwks.json`)).status).toBe(200);
  });
});

describe('a request that arrives while the server closes', () => {
  it('is answered 503 service_unavailable as an ApiError, with Connection: close', async () => {
    // The app's first hooks, as buildApp installs them, plus a preClose hook that holds the close
    // open until the test has sent its request: buildApp's own close leaves no such window.
    const cors = createCorsPolicy({ origins: undefined, wireNames: DEFAULT_WIRE_NAMES });
    const app = Fastify({ return503OnClosing: false, forceCloseConnections: true });
    installErrorHandling(app);
    await app.register(corsPlugin, { policy: cors });
    installNodeAnswers(app, cors);
    app.get('/ping', async () => ({ ok: true }));
    let closeStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      closeStarted = resolve;
    });
    let releaseClose!: () => void;
    const held = new Promise<void>((resolve) => {
      releaseClose = resolve;
    });
    app.addHook('preClose', async () => {
      closeStarted();
      await held;
    });
    const { port } = await listenOnLoopback(app);
    const request = `GET /ping HTTP/1.1\r\nHost: x\r\nOrigin: ${ORIGIN}\r\nConnection: close\r\n\r\n`;
    expect((await sendRaw(port, request)).status).toBe(200);

    const closed = app.close();
    await started;
    const answer = await sendRaw(port, request);
    releaseClose();
    await closed;
    expectApiError(answer, 503, 'service_unavailable');
    expect(answer.headers.connection).toBe('close');
  });
});
