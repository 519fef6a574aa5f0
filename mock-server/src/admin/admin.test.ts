import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { listenOnLoopback } from '../../test/helpers/listen.js';
import { sendRaw } from '../../test/helpers/raw-http.js';
import { buildApp } from '../app.js';

const START = Date.UTC(2032, 6, 1);
const HOUR_MS = 3_600_000;

describe('admin API over real HTTP', () => {
  let app: FastifyInstance;
  let origin: string;
  let auth: Record<string, string>;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}/admin${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: res.status, body: await res.json() };
  };
  const mainAuthz = (init: RequestInit = {}) =>
    fetch(`${origin}/main/authz/.jwt?ItemA`, { headers: auth, ...init });
  const held = async () => (await admin('GET', '/faults')).body.held;

  beforeAll(async () => {
    app = await buildApp({ admin: true, now: () => START });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    auth = { authorization: `IdToken ${signTestIdToken(app)}` };
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await admin('POST', '/reset');
  });

  it('resets the connection: fetch sees a network error', async () => {
    const set = await admin('POST', '/faults', { route: '/authz/.jwt', mode: 'reset', count: 1 });
    expect(set.status).toBe(201);
    expect(set.body).toMatchObject({ route: '/authz/.jwt', mode: 'reset', remaining: 1 });
    await expect(mainAuthz()).rejects.toThrow(TypeError);
    // count 1: the next request goes through.
    expect((await mainAuthz()).status).toBe(200);
  });

  it.each([500, 503] as const)('answers %i with an HTML body', async (status) => {
    await admin('POST', '/faults', { mode: 'error', status });
    const res = await mainAuthz();
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(new RegExp(`<html>.*${status}`, 's'));
    expect(res.headers.get('retry-after')).toBeNull();
    const checkout = await fetch(`${origin}/main/licensing/actions/checkout`, { method: 'POST' });
    expect(checkout.status).toBe(status);
    // Faults apply to the main service only.
    const standby = await fetch(`${origin}/standby/enabled`, { headers: auth });
    expect(standby.status).toBe(200);
  });

  it('sends Retry-After on an error fault only when asked', async () => {
    await admin('POST', '/faults', { mode: 'error', retryAfterSeconds: 7 });
    const res = await mainAuthz();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
  });

  it('delays a request, then answers it normally', async () => {
    await admin('POST', '/faults', { route: '/authz/.jwt', mode: 'delay', delayMs: 400 });
    let settled = false;
    const pending = mainAuthz().finally(() => {
      settled = true;
    });
    await vi.waitFor(async () => expect((await held()).delay).toBe(1));
    expect(settled).toBe(false);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await held()).toEqual({ hang: 0, delay: 0 });
  });

  it('hangs until the client gives up, then releases the request', async () => {
    await admin('POST', '/faults', { route: '/authz/.jwt', mode: 'hang' });
    const controller = new AbortController();
    const pending = mainAuthz({ signal: controller.signal });
    await vi.waitFor(async () => expect((await held()).hang).toBe(1));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await vi.waitFor(async () => expect((await held()).hang).toBe(0));
  });

  it('applies a fault to the next N requests only, per route', async () => {
    await admin('POST', '/faults', { route: '/authz/.jwt', mode: 'error', count: 2 });
    const jwks = await fetch(`${origin}/main/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect((await mainAuthz()).status).toBe(503);
    expect((await admin('GET', '/faults')).body.faults).toEqual([
      {
        service: 'main',
        route: '/authz/.jwt',
        mode: 'error',
        status: 503,
        remaining: 1,
        hits: 1,
        misses: 0,
      },
    ]);
    expect((await mainAuthz()).status).toBe(503);
    expect((await mainAuthz()).status).toBe(200);
    expect((await admin('GET', '/faults')).body.faults).toEqual([]);
  });

  it('clears one route or every fault', async () => {
    await admin('POST', '/faults', { route: '/authz/.jwt', mode: 'error' });
    await admin('POST', '/faults', { route: '/.well-known/jwks.json', mode: 'error' });
    expect((await admin('DELETE', '/faults?route=/authz/.jwt')).body).toEqual({ cleared: 1 });
    expect((await mainAuthz()).status).toBe(200);
    expect((await admin('DELETE', '/faults')).body).toEqual({ cleared: 1 });
    expect((await fetch(`${origin}/main/.well-known/jwks.json`)).status).toBe(200);
  });

  it('refuses a bad fault with a 400 ApiError', async () => {
    const res = await admin('POST', '/faults', { route: '/nowhere', mode: 'explode' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request' });
  });

  it.each([
    ['a string', { offsetMs: '5' }],
    ['null', { offsetMs: null }],
    ['a boolean', { offsetMs: true }],
    ['a fraction', { offsetMs: 1.5 }],
    ['more than ten years', { offsetMs: 8.64e15 }],
    ['1.5e300', { offsetMs: 1.5e300 }],
    ['less than minus ten years', { offsetMs: -315_576_000_001 }],
    ['an advance past ten years', { advanceMs: 315_576_000_001 }],
    ['both members', { offsetMs: 1, advanceMs: 1 }],
    ['an unknown member', { offset: 1 }],
  ])(
    'refuses a clock offset given as %s, stores nothing, and keeps answering',
    async (_n, body) => {
      await admin('PUT', '/clock', { offsetMs: 1000 });
      const res = await admin('PUT', '/clock', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_request' });
      const clock = await admin('GET', '/clock');
      expect(clock.status).toBe(200);
      expect(clock.body.offsetMs).toBe(1000);
    },
  );

  it('accepts offsets up to ten years either way', async () => {
    const tenYears = 315_576_000_000;
    expect((await admin('PUT', '/clock', { offsetMs: tenYears })).body.offsetMs).toBe(tenYears);
    expect((await admin('PUT', '/clock', { offsetMs: -tenYears })).body.offsetMs).toBe(-tenYears);
    expect((await admin('PUT', '/clock', { advanceMs: 1 })).body.offsetMs).toBe(1 - tenYears);
    expect((await admin('GET', '/clock')).status).toBe(200);
  });

  it('never coerces fault values either', async () => {
    for (const body of [
      { mode: 'error', count: '2' },
      { mode: 'error', status: '500' },
      { mode: 'delay', delayMs: null },
      { mode: 'error', count: 1e12 },
    ]) {
      const res = await admin('POST', '/faults', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_request' });
    }
    expect((await admin('GET', '/faults')).body.faults).toEqual([]);
  });

  it('resets every service, or only the one named', async () => {
    const manage = { 'service-apikey': app.apiKey };
    await fetch(`${origin}/standby/enabled`, { method: 'PUT', headers: manage });
    await admin('POST', '/faults', { mode: 'error' });
    await admin('PUT', '/clock', { offsetMs: 1000 });

    const only = await admin('POST', '/reset?service=admin');
    expect(only.body).toEqual({ reset: ['admin'] });
    expect((await mainAuthz()).status).toBe(200);
    expect((await admin('GET', '/clock')).body.offsetMs).toBe(0);
    expect(await (await fetch(`${origin}/standby/enabled`, { headers: auth })).json()).toBe(true);

    const all = await admin('POST', '/reset');
    expect(all.body.reset).toEqual(expect.arrayContaining(['standby', 'main', 'admin']));
    expect(await (await fetch(`${origin}/standby/enabled`, { headers: auth })).json()).toBe(false);

    const unknown = await admin('POST', '/reset?service=nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'invalid_request' });
  });

  it('moves the ID-token grace with the clock offset', async () => {
    const manage = { 'service-apikey': app.apiKey };
    await fetch(`${origin}/standby/enabled`, { method: 'PUT', headers: manage });
    const token = `IdToken ${signTestIdToken(app)}`; // exp = START + 1 h
    const standby = async () =>
      (await fetch(`${origin}/standby/authz/.jwt?ItemA`, { headers: { authorization: token } }))
        .status;
    const main = async () =>
      (await fetch(`${origin}/main/authz/.jwt?ItemA`, { headers: { authorization: token } }))
        .status;

    const set = await admin('PUT', '/clock', { offsetMs: 24 * HOUR_MS });
    expect(set.body).toMatchObject({ offsetMs: 24 * HOUR_MS, nowMs: START + 24 * HOUR_MS });
    expect(await standby()).toBe(200);
    expect(await main()).toBe(401);
    const moved = await admin('PUT', '/clock', { advanceMs: 2 * HOUR_MS });
    expect(moved.body.offsetMs).toBe(26 * HOUR_MS);
    expect(await standby()).toBe(401);
  });
});

describe('faults on every service, over real HTTP', () => {
  let app: FastifyInstance;
  let origin: string;
  let port: number;
  let auth: Record<string, string>;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}/admin${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: res.status, body: await res.json() };
  };
  const setFault = async (body: Record<string, unknown>) => {
    const set = await admin('POST', '/faults', body);
    expect(set.status).toBe(201);
    return set.body;
  };
  const readToken = async () => {
    const res = await fetch(`${origin}/idp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'reader', claims: { '*': true } }),
    });
    return ((await res.json()) as { id_token: string }).id_token;
  };

  beforeAll(async () => {
    app = await buildApp({ admin: true, state: 'active' });
    ({ origin, port } = await listenOnLoopback(app));
    auth = { authorization: `IdToken ${signTestIdToken(app)}` };
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await admin('DELETE', '/faults');
  });

  it('breaks one route of the standby and leaves its other routes and main alone', async () => {
    await setFault({ service: 'standby', route: '/authz/.jwt', mode: 'error', status: 502 });
    const lease = await fetch(`${origin}/standby/authz/.jwt?ItemA`, { headers: auth });
    expect(lease.status).toBe(502);
    expect(lease.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await lease.text()).toContain('502 Bad Gateway');
    expect((await fetch(`${origin}/standby/enabled`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${origin}/main/authz/.jwt?ItemA`, { headers: auth })).status).toBe(200);
  });

  it('takes the issuer down while main still answers (the ID-token grace drill)', async () => {
    await setFault({ service: 'idp', mode: 'reset' });
    await expect(
      fetch(`${origin}/idp/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"sub":"u"}',
      }),
    ).rejects.toThrow(TypeError);
    await expect(fetch(`${origin}/idp/.well-known/jwks.json`)).rejects.toThrow(TypeError);
    expect((await fetch(`${origin}/main/authz/.jwt?ItemA`, { headers: auth })).status).toBe(200);
  });

  it('breaks feed reads of the event service while writes still land', async () => {
    const token = await readToken();
    const faults = await admin('GET', '/faults');
    expect(faults.body.routes.events).toEqual(
      expect.arrayContaining(['/put', '/get/:eventSourceId']),
    );
    await setFault({ service: 'events', route: '/get/:eventSourceId', mode: 'error', status: 500 });
    const read = await fetch(`${origin}/events/get/app-1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(read.status).toBe(500);
    const put = await fetch(`${origin}/events/put`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ eventType: 'Started', eventSourceId: 'app-1' }),
    });
    expect(put.status).toBe(201);
  });

  it('answers a 429 fault with an ApiError, Retry-After and the CORS headers', async () => {
    await setFault({ mode: 'error', status: 429, retryAfterSeconds: 3 });
    const res = await fetch(`${origin}/main/licensing/actions/checkout`, {
      method: 'POST',
      headers: { origin: 'http://app.example.test' },
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.example.test');
    expect(await res.json()).toEqual({
      error: 'too_many_requests',
      error_description: 'Rate limit exceeded',
    });
  });

  it('answers a captive portal: 200 with an HTML login page instead of a token', async () => {
    await setFault({ mode: 'captive-portal' });
    const res = await fetch(`${origin}/main/authz/.jwt?ItemA`, { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('<form');
  });

  it('truncates: status and headers of the real answer, then half the body and a closed socket', async () => {
    const whole = await (await fetch(`${origin}/main/.well-known/jwks.json`)).text();
    await setFault({ route: '/.well-known/jwks.json', mode: 'truncate' });
    const res = await fetch(`${origin}/main/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(whole));
    await expect(res.text()).rejects.toThrow(TypeError);
    // On the wire: exactly the first half, then the server closes.
    const raw = await sendRaw(
      port,
      'GET /main/.well-known/jwks.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    );
    const body = raw.text.slice(raw.text.indexOf('\r\n\r\n') + 4);
    expect(body).toBe(whole.slice(0, Math.floor(Buffer.byteLength(whole) / 2)));
    const journal = await admin('GET', '/requests?service=main&path=/.well-known/jwks.json');
    expect(journal.body.entries.at(-1)).toMatchObject({ status: 200, outcome: 'truncated' });
  });

  it('repeats a seeded fault exactly: the same seed gives the same hits and misses', async () => {
    const run = async () => {
      await setFault({ mode: 'reset', probability: 0.5, seed: 2024 });
      let marks = '';
      for (let i = 0; i < 24; i++) {
        marks += await fetch(`${origin}/main/.well-known/jwks.json`).then(
          () => '.',
          () => 'x',
        );
      }
      const [fault] = (await admin('GET', '/faults')).body.faults;
      return { marks, hits: fault.hits, misses: fault.misses };
    };
    const first = await run();
    expect(first.marks).toMatch(/x/);
    expect(first.marks).toMatch(/\./);
    expect(first.hits + first.misses).toBe(24);
    expect(first.hits).toBe([...first.marks].filter((m) => m === 'x').length);
    expect(await run()).toEqual(first);
  });

  it('hits every n-th request with every', async () => {
    await setFault({ mode: 'error', every: 3 });
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await fetch(`${origin}/main/.well-known/jwks.json`)).status);
    }
    expect(statuses).toEqual([200, 200, 503, 200, 200, 503]);
  });

  it('never faults a preflight, so a browser meets the fault of the request itself', async () => {
    await setFault({ mode: 'reset' });
    const preflight = await fetch(`${origin}/main/authz/.jwt`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example.test', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
  });

  it('clears the faults of one service', async () => {
    await setFault({ mode: 'error' });
    await setFault({ service: 'idp', mode: 'error' });
    expect((await admin('DELETE', '/faults?service=idp')).body).toEqual({ cleared: 1 });
    expect((await admin('GET', '/faults')).body.faults).toEqual([
      expect.objectContaining({ service: 'main', route: '*' }),
    ]);
  });

  it.each([
    ['an unknown route', { route: '/nowhere', mode: 'reset' }],
    ['a route of another service', { service: 'idp', route: '/authz/.jwt', mode: 'reset' }],
    ['an unknown service', { service: 'billing', mode: 'reset' }],
    ['a probability above 1', { mode: 'reset', probability: 1.5 }],
    ['a probability as text', { mode: 'reset', probability: '0.5' }],
    ['a seed as text', { mode: 'reset', probability: 0.5, seed: '5' }],
    ['a negative seed', { mode: 'reset', probability: 0.5, seed: -1 }],
    ['a fractional seed', { mode: 'reset', probability: 0.5, seed: 1.5 }],
    ['every 0', { mode: 'reset', every: 0 }],
    ['a fractional every', { mode: 'reset', every: 2.5 }],
    ['a negative jitter', { mode: 'delay', jitterMs: -1 }],
    ['a status the mode has not', { mode: 'error', status: 418 }],
    ['a null service', { service: null, mode: 'reset' }],
    ['a route without a slash', { route: 'authz', mode: 'reset' }],
    ['truncate with a count as text', { mode: 'truncate', count: '1' }],
  ])('refuses a fault with %s: 400 invalid_request, nothing set', async (_what, body) => {
    const res = await admin('POST', '/faults', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request' });
    expect((await admin('GET', '/faults')).body.faults).toEqual([]);
  });

  it.each([['?service=billing'], ['?route=nowhere']])(
    'refuses to clear faults with %s (400)',
    async (query) => {
      const res = await admin('DELETE', `/faults${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_request' });
    },
  );
});

describe('admin off', () => {
  it('serves no /admin routes and adds no fault hook', async () => {
    const app = await buildApp();
    try {
      const res = await app.inject({ method: 'POST', url: '/admin/reset' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
    } finally {
      await app.close();
    }
  });
});
