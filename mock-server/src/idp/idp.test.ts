import { createPublicKey, createVerify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

type App = Awaited<ReturnType<typeof buildApp>>;

function decodeSegment(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

describe('idp', () => {
  let app: App;
  const now = 1_800_000_000_000;
  beforeAll(async () => {
    app = await buildApp({ issuer: 'https://idp.test', clientId: 'app-1', now: () => now });
  });
  afterAll(() => app.close());

  it('mints an RS256 ID token that verifies against its JWKS', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/idp/token',
      payload: { sub: 'user-1', email: 'u@example.com', expiresInSeconds: 60 },
    });
    expect(res.statusCode).toBe(200);
    const token: string = res.json().id_token;
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const jwks = (await app.inject({ url: '/idp/.well-known/jwks.json' })).json();
    const jwk = jwks.keys.find((key: { kid: string }) => key.kid === decodeSegment(header).kid);
    expect(jwk).toBeDefined();
    const ok = createVerify('sha256')
      .update(`${header}.${payload}`)
      .verify(createPublicKey({ key: jwk, format: 'jwk' }), signature, 'base64url');
    expect(ok).toBe(true);
    expect(decodeSegment(payload)).toEqual({
      iss: 'https://idp.test',
      sub: 'user-1',
      email: 'u@example.com',
      aud: ['app-1'],
      iat: now / 1000,
      exp: now / 1000 + 60,
    });
  });

  it('serves discovery naming the issuer and its JWKS', async () => {
    const doc = (await app.inject({ url: '/idp/.well-known/openid-configuration' })).json();
    expect(doc.issuer).toBe('https://idp.test');
    expect(doc.jwks_uri).toBe('https://idp.test/.well-known/jwks.json');
  });

  it('answers a token request without sub with a 400 ApiError', async () => {
    const res = await app.inject({ method: 'POST', url: '/idp/token', payload: { email: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
  });

  it('answers an unknown route with a 404 ApiError', async () => {
    const res = await app.inject({ url: '/idp/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'not_found' });
  });
});
