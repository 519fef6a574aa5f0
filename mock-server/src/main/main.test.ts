import 'reflect-metadata';
import { createPublicKey, verify, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from '../../test/helpers/decode-jwt.js';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { buildApp } from '../app.js';

const provider = webcrypto as unknown as Crypto;
const START = Date.UTC(2031, 2, 3);

describe('main service', () => {
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let jwk: { kid: string; n: string; e: string; x5c: string[] };

  function verifies(token: string): boolean {
    const [h, p, s] = token.split('.') as [string, string, string];
    const key = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
    return verify('sha256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'));
  }

  beforeAll(async () => {
    app = await buildApp({ items: ['ItemA', 'ItemB'], now: () => START });
    auth = { authorization: `IdToken ${signTestIdToken(app, { claims: { sub: 'bob' } })}` };
    const res = await app.inject({ url: '/main/.well-known/jwks.json' });
    expect(res.statusCode).toBe(200);
    jwk = res.json().keys[0];
  });
  afterAll(() => app.close());

  it('serves its key with an x5c chain that validates to its root, modulus = n', async () => {
    expect(jwk.kid).toBe(app.keyring.main.kid);
    const [leaf, root] = jwk.x5c.map((b64) => new x509.X509Certificate(b64));
    const date = new Date(START);
    expect(await leaf!.verify({ publicKey: root!, date }, provider)).toBe(true);
    expect(await root!.verify({ date }, provider)).toBe(true);
    expect(root!.getExtension(x509.BasicConstraintsExtension)!.ca).toBe(true);
    const modulus = createPublicKey({
      key: Buffer.from(leaf!.publicKey.rawData),
      format: 'der',
      type: 'spki',
    }).export({ format: 'jwk' }).n;
    expect(modulus).toBe(jwk.n);
  });

  it('answers a mixed valid/unknown request with 200 and noLicenseFound for the unknown item', async () => {
    const res = await app.inject({
      url: '/main/authz/.jwt?ItemA&Unknown&ItemB=;licenseId=L7&hw=H1',
      headers: auth,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/jwt/);
    const tokens = res.body.split('&');
    expect(tokens).toHaveLength(3);
    for (const token of tokens) expect(verifies(token)).toBe(true);
    const [a, unknown, b] = tokens.map((t) => decodeJwt(t));
    const iat = START / 1000;
    expect(a!.header).toEqual({ alg: 'RS256', kid: app.keyring.main.kid, typ: 'JWT' });
    expect(a!.payload).toMatchObject({
      ItemA: true,
      iss: 'http://localhost/main',
      sub: 'bob',
      iat,
      exp: iat + 28_800,
      rfr: iat + 21_600,
      hw: 'H1',
    });
    expect(typeof a!.payload.jti).toBe('string');
    expect(b!.payload).toMatchObject({ ItemB: true, lic: 'L7' });
    expect(unknown!.payload).toMatchObject({
      Unknown_errorCode: 'noLicenseFound',
      sub: 'bob',
    });
    expect(typeof unknown!.payload.Unknown_errorMessage).toBe('string');
    expect(unknown!.payload).not.toHaveProperty('Unknown');
    expect(unknown!.payload).not.toHaveProperty('jti');
  });

  it('takes a form body and Bearer tokens', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/main/authz/.jwt',
      headers: {
        authorization: `Bearer ${signTestIdToken(app)}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'ItemB&version=9',
    });
    expect(res.statusCode).toBe(200);
    expect(decodeJwt(res.body).payload).toMatchObject({ ItemB: true, version: '9' });
  });

  it('releases like the standby', async () => {
    const res = await app.inject({ url: '/main/authz/.jwt?release&J9', headers: auth });
    expect(decodeJwt(res.body).payload).toMatchObject({ J9: true, sub: 'bob' });
  });

  it('answers a request without items with 400 invalid_request', async () => {
    const res = await app.inject({ url: '/main/authz/.jwt?version=1', headers: auth });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('checks out known products and denies unknown ones', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/main/licensing/actions/checkout',
      headers: auth,
      payload: [
        { productName: 'ItemA', qty: 1, qtyDimension: 'SEATS' },
        { productName: 'Nope', qty: 2, qtyDimension: 'USE_COUNT' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const [granted, denied] = res.json();
    expect(granted).toMatchObject({ productName: 'ItemA', granted: true });
    expect(verifies(granted.jwt)).toBe(true);
    expect(decodeJwt(granted.jwt).payload).toMatchObject({ ItemA: true, sub: 'bob' });
    expect(denied).toEqual({
      productName: 'Nope',
      granted: false,
      errorCode: 'noLicenseFound',
      errorDescription: expect.any(String),
    });
  });

  it('refuses checkout without an ID token (401) and with a bad body (400)', async () => {
    const body = [{ productName: 'ItemA', qty: 1, qtyDimension: 'SEATS' }];
    const anonymous = await app.inject({
      method: 'POST',
      url: '/main/licensing/actions/checkout',
      payload: body,
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'unauthorized' });
    for (const payload of [
      [{ productName: 'ItemA', qty: 0, qtyDimension: 'SEATS' }],
      [{ productName: 'ItemA', qty: 1, qtyDimension: 'MINUTES' }],
      { productName: 'ItemA' },
      [{ productName: 'exp', qty: 1, qtyDimension: 'SEATS' }],
      Array.from({ length: 101 }, (_, i) => ({
        productName: `P${i}`,
        qty: 1,
        qtyDimension: 'SEATS',
      })),
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/main/licensing/actions/checkout',
        headers: auth,
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request' });
    }
  });

  it('describes every route in /openapi.json and answers unknown routes with an ApiError', async () => {
    const paths = Object.keys((await app.inject({ url: '/openapi.json' })).json().paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/main/authz/.jwt',
        '/main/licensing/actions/checkout',
        '/main/.well-known/jwks.json',
        '/standby/authz/.jwt',
        '/standby/signing-keys',
        '/standby/enabled',
        '/standby/disabled',
        '/standby/.well-known/jwks.json',
      ]),
    );
    const missing = await app.inject({ url: '/main/nowhere' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: 'not_found' });
  });
});
