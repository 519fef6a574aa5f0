import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeJwt } from '../../test/helpers/decode-jwt.js';
import { signTestIdToken, type TestIdTokenOptions } from '../../test/helpers/id-tokens.js';
import { buildApp } from '../app.js';
import { computeServiceKeyHash } from './service-key-hash.js';

const START = Date.UTC(2030, 5, 1);
const HOUR = 3600;

describe('authentication on the standby and main services', () => {
  let app: FastifyInstance;
  let now = START;

  const standby = (authorization?: string) =>
    app.inject({
      url: '/standby/authz/.jwt?ItemA',
      headers: authorization === undefined ? {} : { authorization },
    });
  const main = (authorization?: string) =>
    app.inject({
      url: '/main/authz/.jwt?ItemA',
      headers: authorization === undefined ? {} : { authorization },
    });
  const idToken = (options?: TestIdTokenOptions) => `IdToken ${signTestIdToken(app, options)}`;
  const expiredBy = (seconds: number) => {
    const nowSeconds = Math.floor(now / 1000);
    return idToken({ claims: { iat: nowSeconds - seconds - HOUR, exp: nowSeconds - seconds } });
  };

  beforeAll(async () => {
    app = await buildApp({
      state: 'active',
      issuer: 'https://login.example.test',
      clientId: 'desktop-app',
      now: () => now,
    });
  });
  afterAll(() => app.close());
  beforeEach(() => {
    now = START;
  });

  it('accepts a valid ID token on both services and uses its sub', async () => {
    const token = idToken({ claims: { sub: 'alice', aud: ['other', 'desktop-app'] } });
    for (const res of [await standby(token), await main(token)]) {
      expect(res.statusCode).toBe(200);
      expect(decodeJwt(res.body).payload.sub).toBe('alice');
    }
    const single = await standby(idToken({ claims: { aud: 'desktop-app' } }));
    expect(single.statusCode).toBe(200);
  });

  it('accepts Bearer on the main service only', async () => {
    const bearer = `Bearer ${signTestIdToken(app)}`;
    expect((await main(bearer)).statusCode).toBe(200);
    expect((await standby(bearer)).statusCode).toBe(401);
  });

  it('accepts an ID token 23 h past expiry on the standby, refuses it on the main', async () => {
    const token = expiredBy(23 * HOUR);
    expect((await standby(token)).statusCode).toBe(200);
    const refused = await main(token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('accepts up to exactly 24 h past expiry and refuses beyond, on the injected clock', async () => {
    const nowSeconds = Math.floor(now / 1000);
    const token = idToken({ claims: { iat: nowSeconds - HOUR, exp: nowSeconds } });
    now += 24 * HOUR * 1000;
    expect((await standby(token)).statusCode).toBe(200);
    now += 1000;
    expect((await standby(token)).statusCode).toBe(401);
  });

  it('refuses an ID token 25 h past expiry with 401 invalid_token', async () => {
    const res = await standby(expiredBy(25 * HOUR));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'invalid_token' });
  });

  it.each<[string, TestIdTokenOptions]>([
    ['a wrong iss', { claims: { iss: 'https://evil.test' } }],
    ['an aud without the client id', { claims: { aud: ['someone-else'] } }],
    ['HS256', { alg: 'HS256' }],
    ['alg none', { alg: 'none' }],
    ['a bad signature', { tamper: true }],
    ['iat more than 5 minutes ahead', { claims: { iat: Math.floor(START / 1000) + 301 } }],
    ['no sub', { claims: { sub: undefined } }],
    ['no exp', { claims: { exp: undefined } }],
    ['no iat', { claims: { iat: 'yesterday' } }],
    ['a crit header, signature valid', { header: { crit: ['exp'], exp: 1 } }],
    ['a b64 header, signature valid', { header: { b64: false, crit: ['b64'] } }],
    ['a signature in standard base64', { standardBase64: true }],
  ])('refuses %s with 401 invalid_token and WWW-Authenticate', async (_name, options) => {
    for (const res of [await standby(idToken(options)), await main(idToken(options))]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({ error: 'invalid_token' });
      expect(res.headers['www-authenticate']).toMatch(/IdToken/);
    }
    const standbyChallenge = (await standby(idToken(options))).headers['www-authenticate'];
    expect(standbyChallenge).toMatch(/IdToken.*ServiceKeyHash/);
  });

  it('accepts iat up to 5 minutes ahead', async () => {
    const res = await standby(idToken({ claims: { iat: Math.floor(START / 1000) + 300 } }));
    expect(res.statusCode).toBe(200);
  });

  it('accepts the ServiceKeyHash of the main key in lower and upper hex, refuses others', async () => {
    const hash = computeServiceKeyHash(app.keyring.main.publicKey);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await standby(`ServiceKeyHash ${hash}`)).statusCode).toBe(200);
    expect((await standby(`ServiceKeyHash ${hash.toUpperCase()}`)).statusCode).toBe(200);
    const issuerHash = computeServiceKeyHash(app.keyring.issuer.publicKey);
    const wrong = await standby(`ServiceKeyHash ${issuerHash}`);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'invalid_token' });
  });

  it.each([
    ['an empty header', ''],
    ['a scheme without credentials', 'IdToken'],
    ['an unknown scheme', 'Basic dXNlcjpwYXNz'],
    ['a garbage token', 'IdToken not-a-jwt'],
    ['a token with bad JSON', 'IdToken e30.bm9wZQ.c2ln'],
  ])('refuses %s with 401', async (_name, header) => {
    const res = await standby(header);
    expect(res.statusCode).toBe(401);
    expect(['unauthorized', 'invalid_token']).toContain(res.json().error);
    expect(res.headers['www-authenticate']).toMatch(/IdToken.*ServiceKeyHash/);
  });

  it('answers a missing header with 401 unauthorized', async () => {
    const res = await standby();
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('re-checks expiry on each use of a cached token', async () => {
    const token = idToken();
    expect((await main(token)).statusCode).toBe(200);
    now += 2 * HOUR * 1000;
    expect((await main(token)).statusCode).toBe(401);
  });
});

describe('configured trust', () => {
  it('trusts only the configured ID-token keys and service keys', async () => {
    const other = await buildApp();
    const app = await buildApp({
      state: 'active',
      idpPublicKeys: [other.keyring.issuer.publicPem],
      servicePublicKeys: [other.keyring.main.publicPem],
    });
    try {
      const call = (authorization: string) =>
        app.inject({ url: '/standby/authz/.jwt?A', headers: { authorization } });
      expect((await call(`IdToken ${signTestIdToken(other)}`)).statusCode).toBe(200);
      expect((await call(`IdToken ${signTestIdToken(app)}`)).statusCode).toBe(401);
      const otherHash = computeServiceKeyHash(other.keyring.main.publicKey);
      expect((await call(`ServiceKeyHash ${otherHash}`)).statusCode).toBe(200);
      const ownHash = computeServiceKeyHash(app.keyring.main.publicKey);
      expect((await call(`ServiceKeyHash ${ownHash}`)).statusCode).toBe(401);
    } finally {
      await Promise.all([app.close(), other.close()]);
    }
  });
});
