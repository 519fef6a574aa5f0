import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { buildApp } from '../app.js';

const START = Date.UTC(2033, 1, 2);
const iat = START / 1000;

describe('main /authz/.json', () => {
  let app: FastifyInstance;
  let auth: Record<string, string>;

  beforeAll(async () => {
    app = await buildApp({ items: ['ItemA'], now: () => START, state: 'active' });
    auth = { authorization: `Bearer ${signTestIdToken(app, { claims: { sub: 'ann' } })}` };
  });
  afterAll(() => app.close());

  it('answers a consume of one item with its claims as JSON (GET)', async () => {
    const res = await app.inject({ url: '/main/authz/.json?ItemA&hw=H1', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      ItemA: true,
      lic: expect.any(String),
      jti: expect.any(String),
      iss: 'http://localhost/main',
      sub: 'ann',
      iat,
      exp: iat + 28_800,
      rfr: iat + 21_600,
      hw: 'H1',
    });
  });

  it('takes the parameters from a form body too (POST), and renews a named lease', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/main/authz/.json',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'ItemA=;leaseId=J1',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ItemA: true, jti: 'J1' });
  });

  it('answers a denied item with its error claims, still 200', async () => {
    const res = await app.inject({ url: '/main/authz/.json?Nope', headers: auth });
    expect(res.statusCode).toBe(200);
    const claims = res.json();
    expect(claims).toMatchObject({ Nope_errorCode: 'noLicenseFound', sub: 'ann' });
    expect(claims).not.toHaveProperty('Nope');
    expect(claims).not.toHaveProperty('jti');
  });

  it('answers a release with { <leaseId>: true, iss, sub, iat, exp }', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/main/authz/.json?release=true&J1=&J2=&hw=H1',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      J1: true,
      J2: true,
      iss: 'http://localhost/main',
      sub: 'ann',
      iat,
      exp: iat + 28_800,
    });
  });

  it('refuses more than one item: 400 invalid_request', async () => {
    const res = await app.inject({ url: '/main/authz/.json?ItemA&ItemB', headers: auth });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('needs the same credentials as /authz/.jwt', async () => {
    const res = await app.inject({ url: '/main/authz/.json?ItemA' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('has no JSON form on the standby: 404', async () => {
    const standbyAuth = { authorization: `IdToken ${signTestIdToken(app)}` };
    for (const method of ['GET', 'POST'] as const) {
      const res = await app.inject({
        method,
        url: '/standby/authz/.json?release=true&J1=',
        headers: standbyAuth,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
    }
  });
});
