import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from '../../test/helpers/decode-jwt.js';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { buildApp } from '../app.js';
import { computeServiceKeyHash } from '../auth/service-key-hash.js';
import { resolveOptions } from '../config/options.js';

describe('vendor wire names', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp({
      state: 'active',
      apiKey: 'k',
      wireNames: {
        apiKeyHeader: 'Acme-ApiKey',
        signingKeyIdHeader: 'Acme-SigningKeyId',
        idTokenScheme: 'AcmeIdToken',
        serviceKeyHashScheme: 'AcmeKeyHash',
      },
    });
  });
  afterAll(() => app.close());

  it('accepts the vendor scheme names and names them in WWW-Authenticate', async () => {
    const token = signTestIdToken(app);
    const ok = await app.inject({
      url: '/standby/enabled',
      headers: { authorization: `AcmeIdToken ${token}` },
    });
    expect(ok.statusCode).toBe(200);
    const hash = computeServiceKeyHash(app.keyring.main.publicKey);
    const byHash = await app.inject({
      url: '/standby/enabled',
      headers: { authorization: `acmekeyhash ${hash}` },
    });
    expect(byHash.statusCode).toBe(200);
    const neutral = await app.inject({
      url: '/standby/enabled',
      headers: { authorization: `IdToken ${token}` },
    });
    expect(neutral.statusCode).toBe(401);
    expect(neutral.headers['www-authenticate']).toBe(
      'AcmeIdToken realm="standby", AcmeKeyHash realm="standby"',
    );
  });

  it('reads the management key and signing key id from the vendor headers', async () => {
    const neutral = await app.inject({
      method: 'POST',
      url: '/standby/signing-keys',
      headers: { 'service-apikey': 'k' },
    });
    expect(neutral.statusCode).toBe(401);
    expect(neutral.json().error).toBe('invalid_api_key');
    const created = await app.inject({
      method: 'POST',
      url: '/standby/signing-keys',
      headers: { 'acme-apikey': 'k' },
    });
    expect(created.statusCode).toBe(201);
    const { keyId } = created.json();
    const headers = { authorization: `AcmeIdToken ${signTestIdToken(app)}` };
    const pinned = await app.inject({
      url: '/standby/authz/.jwt?ItemA',
      headers: { ...headers, 'acme-signingkeyid': keyId },
    });
    expect(decodeJwt(pinned.body).header.kid).toBe(keyId);
    const unknown = await app.inject({
      url: '/standby/authz/.jwt?ItemA',
      headers: { ...headers, 'acme-signingkeyid': 'nope' },
    });
    expect(unknown.json().error).toBe('unknown_signing_key');
  });

  it('refuses names that are not HTTP tokens, and unknown entries', () => {
    expect(() => resolveOptions({ wireNames: { apiKeyHeader: 'Bad Header' } })).toThrow(TypeError);
    expect(() => resolveOptions({ wireNames: { other: 'x' } as never })).toThrow(
      /Unknown wireNames entry/,
    );
  });
});
