import 'reflect-metadata';
import { createPublicKey, verify, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeJwt } from '../../test/helpers/decode-jwt.js';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { buildApp } from '../app.js';
import { computeServiceKeyHash } from '../auth/service-key-hash.js';

const provider = webcrypto as unknown as Crypto;
const START = Date.UTC(2030, 0, 15, 12, 0, 0);

interface Jwk {
  kid: string;
  n: string;
  e: string;
  x5c: string[];
  kty: string;
  alg: string;
  use: string;
}

describe('standby service', () => {
  let app: FastifyInstance;
  let now = START;
  let auth: Record<string, string>;
  let manage: Record<string, string>;

  const call = (options: InjectOptions) => app.inject(options);
  const enable = () => call({ method: 'PUT', url: '/standby/enabled', headers: manage });
  const disable = () => call({ method: 'POST', url: '/standby/disabled', headers: manage });
  const authz = (query: string, headers: Record<string, string> = {}) =>
    call({ url: `/standby/authz/.jwt?${query}`, headers: { ...auth, ...headers } });
  const jwks = async (): Promise<Jwk[]> =>
    (await call({ url: '/standby/.well-known/jwks.json', headers: auth })).json().keys;

  function verifyWithJwks(token: string, keys: Jwk[]): boolean {
    const [h, p, s] = token.split('.') as [string, string, string];
    const jwk = keys.find((k) => k.kid === decodeJwt(token).header.kid);
    if (!jwk) return false;
    const key = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
    return verify('sha256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'));
  }

  beforeAll(async () => {
    app = await buildApp({ issuer: 'https://idp.test', clientId: 'app-1', now: () => now });
    auth = { authorization: `IdToken ${signTestIdToken(app)}` };
    manage = { 'service-apikey': app.apiKey };
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    now = START;
    await disable();
  });

  describe('dormant', () => {
    it('reports its state on status checks', async () => {
      const enabled = await call({ url: '/standby/enabled', headers: auth });
      expect(enabled.statusCode).toBe(200);
      expect(enabled.headers['content-type']).toMatch(/^application\/json/);
      expect(enabled.json()).toBe(false);
      expect((await call({ url: '/standby/disabled', headers: auth })).json()).toBe(true);
    });

    it('answers 403 standby_dormant on /authz/.jwt and JWKS after authentication', async () => {
      for (const url of ['/standby/authz/.jwt?ItemA', '/standby/.well-known/jwks.json']) {
        const res = await call({ url, headers: auth });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ error: 'standby_dormant' });
        const anonymous = await call({ url });
        expect(anonymous.statusCode).toBe(401);
      }
      const post = await call({ method: 'POST', url: '/standby/authz/.jwt?ItemA', headers: auth });
      expect(post.statusCode).toBe(403);
    });

    it('still generates signing keys', async () => {
      const res = await call({ method: 'POST', url: '/standby/signing-keys', headers: manage });
      expect(res.statusCode).toBe(201);
    });
  });

  describe('management calls', () => {
    it.each(['PATCH', 'POST', 'PUT'] as const)(
      '%s /enabled enables with the right key',
      async (method) => {
        const res = await call({ method, url: '/standby/enabled', headers: manage });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toBe(true);
        expect((await call({ url: '/standby/enabled', headers: auth })).json()).toBe(true);
      },
    );

    it.each(['GET', 'PATCH', 'POST', 'PUT'] as const)(
      '%s /disabled disables with the right key',
      async (method) => {
        await enable();
        const res = await call({ method, url: '/standby/disabled', headers: manage });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toBe(true);
        expect((await call({ url: '/standby/enabled', headers: auth })).json()).toBe(false);
      },
    );

    it.each([
      ['PUT', '/standby/enabled'],
      ['GET', '/standby/disabled'],
      ['POST', '/standby/disabled'],
      ['POST', '/standby/signing-keys'],
    ] as const)(
      '%s %s refuses a wrong or missing key with 401 invalid_api_key',
      async (method, url) => {
        const wrong = await call({ method, url, headers: { 'service-apikey': `${app.apiKey}x` } });
        expect(wrong.statusCode).toBe(401);
        expect(wrong.json()).toMatchObject({ error: 'invalid_api_key' });
        if (method !== 'GET') {
          const missing = await call({ method, url, headers: auth });
          expect(missing.statusCode).toBe(401);
          expect(missing.json()).toMatchObject({ error: 'invalid_api_key' });
        }
      },
    );

    it('does not change state on a refused call', async () => {
      await call({ method: 'PUT', url: '/standby/enabled', headers: { 'service-apikey': 'nope' } });
      expect((await call({ url: '/standby/enabled', headers: auth })).json()).toBe(false);
    });

    it('requires Authorization on status checks', async () => {
      const res = await call({ url: '/standby/enabled' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: 'unauthorized' });
      expect(res.headers['www-authenticate']).toContain('IdToken');
      expect(res.headers['www-authenticate']).toContain('ServiceKeyHash');
      const bad = await call({
        url: '/standby/disabled',
        headers: { authorization: 'IdToken x.y.z' },
      });
      expect(bad.statusCode).toBe(401);
      expect(bad.json()).toMatchObject({ error: 'invalid_token' });
    });
  });

  describe('active: /authz/.jwt', () => {
    beforeEach(async () => {
      await enable();
    });

    it('issues one verifiable token per item in request order with every claim', async () => {
      const res = await authz(
        'ItemA&ItemB=&hw=HW-1;name=Desk%201&process=proc-9&version=2.1.0&consumptionMode=checkout',
      );
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/jwt/);
      const tokens = res.body.split('&');
      expect(tokens).toHaveLength(2);
      const keys = await jwks();
      const iat = Math.floor(START / 1000);
      const decoded = tokens.map(decodeJwt);
      for (const [i, { header, payload }] of decoded.entries()) {
        expect(verifyWithJwks(tokens[i]!, keys)).toBe(true);
        expect(header).toEqual({ alg: 'RS256', kid: keys[0]!.kid, typ: 'JWT' });
        expect(payload).toMatchObject({
          iss: 'http://localhost/standby',
          sub: 'user-1',
          iat,
          exp: iat + 28_800,
          rfr: iat + 21_600,
          hw: 'HW-1',
          hwName: 'Desk 1',
          process: 'proc-9',
          version: '2.1.0',
          consumptionMode: 'checkout',
        });
        expect(typeof payload.lic).toBe('string');
        expect(typeof payload.jti).toBe('string');
      }
      expect(decoded[0]!.payload.ItemA).toBe(true);
      expect(decoded[0]!.payload.ItemB).toBeUndefined();
      expect(decoded[1]!.payload.ItemB).toBe(true);
      expect(decoded[0]!.payload.lic).not.toBe(decoded[1]!.payload.lic);
      expect(decoded[0]!.payload.jti).not.toBe(decoded[1]!.payload.jti);
    });

    it('echoes requested license ids and leaves out echoes the request did not carry', async () => {
      const res = await authz('ItemA=;licenseId=L-1&ItemB');
      const [a, b] = res.body.split('&').map((t) => decodeJwt(t).payload);
      expect(a!.lic).toBe('L-1');
      expect(b!.lic).not.toBe('L-1');
      expect(a).not.toHaveProperty('hw');
      expect(a).not.toHaveProperty('version');
      const single = decodeJwt((await authz('ItemC&licenseId=L-2')).body).payload;
      expect(single.lic).toBe('L-2');
    });

    it('renews a lease: same jti, new iat and exp', async () => {
      const first = decodeJwt((await authz('ItemA')).body).payload;
      now += 6 * 3600_000;
      for (const query of [`ItemA=;leaseId=${first.jti}`, `ItemA&leaseId=${first.jti}`]) {
        const renewed = decodeJwt((await authz(query)).body).payload;
        expect(renewed.jti).toBe(first.jti);
        expect(renewed.iat).toBe((first.iat as number) + 6 * 3600);
        expect(renewed.exp).toBe((renewed.iat as number) + 28_800);
        expect(renewed.ItemA).toBe(true);
      }
    });

    it('releases lease ids in one token, for each accepted spelling', async () => {
      for (const query of ['release&J1&J2', 'release=true&J1=&J2', 'J1&release&leaseId=J2']) {
        const res = await authz(query);
        expect(res.statusCode).toBe(200);
        const tokens = res.body.split('&');
        expect(tokens).toHaveLength(1);
        const { payload } = decodeJwt(tokens[0]!);
        const iat = Math.floor(START / 1000);
        expect(payload).toEqual({
          J1: true,
          J2: true,
          iss: 'http://localhost/standby',
          sub: 'user-1',
          iat,
          exp: iat + 28_800,
        });
      }
    });

    it('takes parameters from an x-www-form-urlencoded POST body', async () => {
      const res = await call({
        method: 'POST',
        url: '/standby/authz/.jwt?ItemA',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'ItemB=%3BlicenseId%3DL-9&version=3',
      });
      expect(res.statusCode).toBe(200);
      const [a, b] = res.body.split('&').map((t) => decodeJwt(t).payload);
      expect(a).toMatchObject({ ItemA: true, version: '3' });
      expect(b).toMatchObject({ ItemB: true, lic: 'L-9', version: '3' });
    });

    it('gives ServiceKeyHash callers sub "service"', async () => {
      const hash = computeServiceKeyHash(app.keyring.main.publicKey);
      const res = await authz('ItemA', { authorization: `ServiceKeyHash ${hash}` });
      expect(decodeJwt(res.body).payload.sub).toBe('service');
    });

    it.each([
      ['no item', ''],
      ['only reserved names', 'hw=H1&version=2'],
      ['a release without ids', 'release'],
      ['bad percent-encoding', 'Item%ZZ'],
      ['a bad consumptionMode', 'ItemA&consumptionMode=forever'],
      ['one leaseId for several items', 'ItemA&ItemB&leaseId=J1'],
    ])('answers %s with 400 invalid_request', async (_name, query) => {
      const res = await authz(query);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('caps items per request at 100 (query and form body together) with a 400 ApiError', async () => {
      const names = (n: number, prefix: string) =>
        Array.from({ length: n }, (_, i) => `${prefix}${i}`).join('&');
      const hundred = await authz(names(100, 'I'));
      expect(hundred.statusCode).toBe(200);
      expect(hundred.body.split('&')).toHaveLength(100);
      const tooMany = await call({
        method: 'POST',
        url: `/standby/authz/.jwt?${names(50, 'Q')}`,
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: names(100_000, 'B'),
      });
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.json()).toMatchObject({ error: 'invalid_request' });
      expect((await authz(`release&${names(101, 'L')}`)).statusCode).toBe(400);
    });

    it.each(['exp', 'iat', 'sub', 'iss', 'lic', 'jti', 'rfr', 'aud', 'nbf', 'hwName'])(
      'refuses an item named like the claim %s with a 400 ApiError',
      async (claim) => {
        const res = await authz(`ItemA&${claim}`);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_request' });
      },
    );

    it('takes iss from the server URL, never from the Host header', async () => {
      for (const host of ['user:pw@evil.test', 'evil.test:666', 'x/../../']) {
        const res = await authz('ItemA', { host });
        expect(res.statusCode).toBe(200);
        expect(decodeJwt(res.body).payload.iss).toBe('http://localhost/standby');
      }
    });

    it('answers a bad form body and an unsupported body type with ApiErrors', async () => {
      const bad = await call({
        method: 'POST',
        url: '/standby/authz/.jwt',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'Item%E0%A4%A',
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: 'invalid_request' });
      const text = await call({
        method: 'POST',
        url: '/standby/authz/.jwt',
        headers: { ...auth, 'content-type': 'text/plain' },
        payload: 'ItemA',
      });
      expect(text.statusCode).toBe(415);
      expect(text.json()).toMatchObject({ error: 'unsupported_media_type' });
    });

    it('survives non-UTF-8 bytes, garbage tokens and huge headers with 4xx ApiErrors', async () => {
      const latin1 = await authz('Item%FF%FE');
      expect(latin1.statusCode).toBe(400);
      const garbage = await authz('ItemA', { authorization: 'IdToken \u00ff\u00fe.%%%.!!' });
      expect(garbage.statusCode).toBe(401);
      const huge = await authz('ItemA', { authorization: `IdToken ${'a'.repeat(20_000)}` });
      expect(huge.statusCode).toBe(401);
      expect((await authz('ItemA')).statusCode).toBe(200);
    });
  });

  describe('signing keys', () => {
    let created: {
      keyId: string;
      rootCertificate: string;
      signingCertificate: string;
      notBefore: string;
      notAfter: string;
    };
    let olderKid: string;

    beforeAll(async () => {
      await enable();
      olderKid = (await jwks())[0]!.kid;
      const res = await call({ method: 'POST', url: '/standby/signing-keys', headers: manage });
      expect(res.statusCode).toBe(201);
      created = res.json();
    });

    it('answers 201 with key id, PEM certificates and a five-year validity', () => {
      expect(created.rootCertificate).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
      expect(created.signingCertificate).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
      expect(created.notBefore).toBe(new Date(START - 300_000).toISOString());
      expect(created.notAfter).toBe(new Date(Date.UTC(2035, 0, 15, 12)).toISOString());
    });

    it('lists every key newest first, the new one as default', async () => {
      await enable();
      const keys = await jwks();
      expect(keys[0]!.kid).toBe(created.keyId);
      expect(keys.map((k) => k.kid)).toContain(olderKid);
      for (const key of keys) {
        expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
        expect(key.x5c).toHaveLength(2);
      }
      const token = (await authz('ItemA')).body;
      expect(decodeJwt(token).header.kid).toBe(created.keyId);
      expect(verifyWithJwks(token, keys)).toBe(true);
    });

    it('serves an x5c chain that validates up to the returned root, x5c[0] modulus = n', async () => {
      await enable();
      const jwk = (await jwks()).find((k) => k.kid === created.keyId)!;
      const [leaf, root] = jwk.x5c.map((b64) => new x509.X509Certificate(b64));
      const embeddedRoot = new x509.X509Certificate(created.rootCertificate);
      expect(root!.equal(embeddedRoot)).toBe(true);
      expect(new x509.X509Certificate(created.signingCertificate).equal(leaf!)).toBe(true);

      const date = new Date(START + 86_400_000);
      expect(await leaf!.verify({ publicKey: embeddedRoot, date }, provider)).toBe(true);
      expect(await embeddedRoot.verify({ date }, provider)).toBe(true);
      const chain = await new x509.X509ChainBuilder({ certificates: [embeddedRoot] }).build(
        leaf!,
        provider,
      );
      expect(chain.map((c) => c.subject)).toEqual([leaf!.subject, embeddedRoot.subject]);
      const afterExpiry = new Date(Date.UTC(2035, 0, 16));
      expect(await leaf!.verify({ publicKey: embeddedRoot, date: afterExpiry }, provider)).toBe(
        false,
      );

      const rootBasic = embeddedRoot.getExtension(x509.BasicConstraintsExtension)!;
      expect(rootBasic.ca).toBe(true);
      const rootUsage = embeddedRoot.getExtension(x509.KeyUsagesExtension)!;
      expect(rootUsage.usages & x509.KeyUsageFlags.keyCertSign).toBeTruthy();
      expect(leaf!.getExtension(x509.BasicConstraintsExtension)!.ca).toBe(false);
      expect(leaf!.getExtension(x509.KeyUsagesExtension)!.usages).toBe(
        x509.KeyUsageFlags.digitalSignature,
      );

      const spki = Buffer.from(leaf!.publicKey.rawData);
      const modulus = createPublicKey({ key: spki, format: 'der', type: 'spki' }).export({
        format: 'jwk',
      }).n;
      expect(modulus).toBe(jwk.n);
    });

    it('signs with an older key pinned by Service-SigningKeyId', async () => {
      await enable();
      const res = await authz('ItemA', { 'service-signingkeyid': olderKid });
      expect(res.statusCode).toBe(200);
      expect(decodeJwt(res.body).header.kid).toBe(olderKid);
      expect(verifyWithJwks(res.body, await jwks())).toBe(true);
    });

    it('refuses an unknown Service-SigningKeyId with 400 unknown_signing_key', async () => {
      await enable();
      const res = await authz('ItemA', { 'service-signingkeyid': 'no-such-key' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'unknown_signing_key' });
    });
  });

  it('reset returns to the initial state', async () => {
    await enable();
    await app.resets.get('standby')!();
    expect((await call({ url: '/standby/enabled', headers: auth })).json()).toBe(false);
  });
});

describe('standby propagation delay', () => {
  it('applies enable and disable only after the delay on the server clock', async () => {
    let now = START;
    const app = await buildApp({ propagationDelayMs: 120_000, now: () => now });
    try {
      const auth = { authorization: `IdToken ${signTestIdToken(app)}` };
      const manage = { 'service-apikey': app.apiKey };
      const enabled = async () =>
        (await app.inject({ url: '/standby/enabled', headers: auth })).json();
      expect(
        (await app.inject({ method: 'POST', url: '/standby/enabled', headers: manage })).json(),
      ).toBe(true);
      expect(await enabled()).toBe(false);
      expect((await app.inject({ url: '/standby/authz/.jwt?A', headers: auth })).statusCode).toBe(
        403,
      );
      now += 119_999;
      expect(await enabled()).toBe(false);
      now += 1;
      expect(await enabled()).toBe(true);
      expect((await app.inject({ url: '/standby/authz/.jwt?A', headers: auth })).statusCode).toBe(
        200,
      );
      await app.inject({ method: 'POST', url: '/standby/disabled', headers: manage });
      expect(await enabled()).toBe(true);
      now += 120_000;
      expect(await enabled()).toBe(false);
    } finally {
      await app.close();
    }
  });
});
