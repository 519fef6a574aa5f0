import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { listenOnLoopback } from '../../test/helpers/listen.js';
import { describedRoutes } from '../../test/helpers/routes.js';
import { buildApp } from '../app.js';

const PAGE = 'http://page.example.test';

type Headers = Record<string, string | string[] | number | undefined>;

function expectGranted(headers: Headers, origin = PAGE): void {
  expect(headers['access-control-allow-origin']).toBe(origin);
  expect(headers.vary).toMatch(/\bOrigin\b/);
  expect(headers['access-control-expose-headers']).toBe('Retry-After, WWW-Authenticate, Date');
  expect(headers['access-control-allow-credentials']).toBeUndefined();
}

function expectPreflight(status: number, headers: Headers, origin = PAGE): void {
  expect(status).toBe(204);
  expectGranted(headers, origin);
  const methods = String(headers['access-control-allow-methods']).split(/,\s*/);
  expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
  expect(String(headers['access-control-allow-headers']).split(/,\s*/)).toEqual(
    expect.arrayContaining([
      'Authorization',
      'Content-Type',
      'Accept',
      'Service-ApiKey',
      'Service-SigningKeyId',
    ]),
  );
  expect(headers['access-control-max-age']).toBe('600');
}

describe('CORS with any origin allowed (the default)', () => {
  let app: FastifyInstance;
  let origin: string;

  beforeAll(async () => {
    app = await buildApp({ state: 'active', admin: true });
    ({ origin } = await listenOnLoopback(app));
  });
  afterAll(() => app.close());

  it('answers a preflight on every described route with 204 and the grants (admin: loopback pages)', async () => {
    const routes = describedRoutes(app);
    expect(routes.length).toBeGreaterThan(15);
    for (const route of routes) {
      // The admin API answers pages on loopback origins only (its lockdown is tested apart).
      const page = route.url.startsWith('/admin') ? 'http://localhost:5173' : PAGE;
      const res = await app.inject({
        method: 'OPTIONS',
        url: route.url,
        headers: {
          origin: page,
          'access-control-request-method': route.method,
          'access-control-request-headers': 'authorization, service-apikey',
        },
      });
      expectPreflight(res.statusCode, res.headers, page);
      expect(res.body).toBe('');
    }
  });

  it('answers a preflight on an unknown path the same way', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/no/such/route',
      headers: { origin: PAGE, 'access-control-request-method': 'GET' },
    });
    expectPreflight(res.statusCode, res.headers);
  });

  it('grants the reading of successes, 401s, 404s, validation errors and framework errors', async () => {
    const ok = await app.inject({ url: '/main/.well-known/jwks.json', headers: { origin: PAGE } });
    expect(ok.statusCode).toBe(200);
    expectGranted(ok.headers);
    const lease = await app.inject({
      url: '/standby/authz/.jwt?ItemA',
      headers: { origin: PAGE, authorization: `IdToken ${signTestIdToken(app)}` },
    });
    expect(lease.statusCode).toBe(200);
    expectGranted(lease.headers);
    const unauthorized = await app.inject({
      url: '/standby/authz/.jwt?ItemA',
      headers: { origin: PAGE },
    });
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.headers['www-authenticate']).toMatch(/IdToken/);
    expectGranted(unauthorized.headers);
    const missing = await app.inject({ url: '/nowhere', headers: { origin: PAGE } });
    expect(missing.statusCode).toBe(404);
    expectGranted(missing.headers);
    const invalid = await app.inject({
      method: 'POST',
      url: '/idp/token',
      headers: { origin: PAGE, 'content-type': 'application/json' },
      payload: { sub: 5 },
    });
    expect(invalid.statusCode).toBe(400);
    expectGranted(invalid.headers);
    const badUrl = await app.inject({ url: '/events/get/%E0%A4%A', headers: { origin: PAGE } });
    expect(badUrl.statusCode).toBe(400);
    expectGranted(badUrl.headers);
  });

  it('grants the reading of an injected fault answer, Retry-After included', async () => {
    const set = await app.inject({
      method: 'POST',
      url: '/admin/faults',
      payload: { mode: 'error', status: 503, retryAfterSeconds: 2, count: 1 },
    });
    expect(set.statusCode).toBe(201);
    const res = await fetch(`${origin}/main/authz/.jwt?ItemA`, {
      headers: { origin: PAGE, authorization: `IdToken ${signTestIdToken(app)}` },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
  });

  it('serves a browser over real HTTP: preflight, then the 401 and the lease', async () => {
    const preflight = await fetch(`${origin}/standby/authz/.jwt`, {
      method: 'OPTIONS',
      headers: {
        origin: PAGE,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization, service-signingkeyid',
      },
    });
    expectPreflight(preflight.status, Object.fromEntries(preflight.headers));
    const refused = await fetch(`${origin}/standby/authz/.jwt?ItemA`, {
      headers: { origin: PAGE },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(refused.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);
    const lease = await fetch(`${origin}/standby/authz/.jwt?ItemA`, {
      headers: { origin: PAGE, authorization: `IdToken ${signTestIdToken(app)}` },
    });
    expect(lease.status).toBe(200);
    expect(lease.headers.get('access-control-allow-origin')).toBe(PAGE);
  });

  it('answers Private Network Access preflights', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/standby/enabled',
      headers: {
        origin: PAGE,
        'access-control-request-method': 'GET',
        'access-control-request-private-network': 'true',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-private-network']).toBe('true');
  });

  it('sends * to requests without an Origin', async () => {
    const res = await app.inject({ url: '/main/.well-known/jwks.json' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('CORS restricted by corsOrigins', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await buildApp({
      corsOrigins: [PAGE, 'https://other.example.test'],
      wireNames: { apiKeyHeader: 'Acme-ApiKey', signingKeyIdHeader: 'Acme-KeyId' },
    });
  });
  afterAll(() => app.close());

  it('grants the listed origins and names the vendor headers in preflights', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/standby/signing-keys',
      headers: { origin: PAGE, 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
    expectGranted(res.headers);
    expect(res.headers['access-control-allow-headers']).toMatch(/\bAcme-ApiKey\b/);
    expect(res.headers['access-control-allow-headers']).toMatch(/\bAcme-KeyId\b/);
    const get = await app.inject({ url: '/idp/.well-known/jwks.json', headers: { origin: PAGE } });
    expectGranted(get.headers);
  });

  it('grants nothing to other origins: no allow-origin, and a 403 ApiError preflight', async () => {
    const evil = 'https://evil.example.test';
    const get = await app.inject({ url: '/idp/.well-known/jwks.json', headers: { origin: evil } });
    expect(get.statusCode).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    expect(get.headers.vary).toMatch(/Origin/);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/idp/.well-known/jwks.json',
      headers: { origin: evil, 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(403);
    expect(preflight.json()).toMatchObject({ error: 'origin_not_allowed' });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
    const anonymous = await app.inject({ url: '/idp/.well-known/jwks.json' });
    expect(anonymous.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses origins that are not origins', async () => {
    await expect(buildApp({ corsOrigins: ['https://x.test/path'] })).rejects.toThrow(TypeError);
    await expect(buildApp({ corsOrigins: ['x.test'] })).rejects.toThrow(/corsOrigins/);
  });
});
