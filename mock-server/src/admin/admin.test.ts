import { signTestIdToken } from '@test/helpers/mock-server/id-tokens.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
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
      { route: '/authz/.jwt', mode: 'error', status: 503, remaining: 1, hits: 1 },
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
