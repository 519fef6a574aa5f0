import { generateKeyPairSync } from 'node:crypto';
import {
  CompactSign,
  compactVerify,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  jwtVerify,
  SignJWT,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventSigningAlgorithm } from '../options/event-client.js';
import { importSigningKey, signCompactJws, signJwt } from './jws-signing.js';

const ALGS: EventSigningAlgorithm[] = ['RS256', 'RS384', 'RS512'];
let keys: Record<EventSigningAlgorithm, CryptoKeyPair>;

beforeAll(async () => {
  const pairs = await Promise.all(
    ALGS.map((alg) => generateKeyPair(alg, { extractable: true }) as Promise<CryptoKeyPair>),
  );
  keys = Object.fromEntries(ALGS.map((alg, i) => [alg, pairs[i]!])) as typeof keys;
});

describe('signCompactJws and signJwt', () => {
  it.each(ALGS)('sign %s exactly as jose does (PKCS#1 v1.5 is deterministic)', async (alg) => {
    const key = await importSigningKey(keys[alg].privateKey, alg, 'signer.privateKey');
    const payload = new TextEncoder().encode('[{"eventType":"Ünïcode","data":{"n":1}}]');
    const header = { alg, kid: 'writer-1' };
    const ours = await signCompactJws(payload, header, key);
    expect(ours).toBe(await new CompactSign(payload).setProtectedHeader(header).sign(key));
    const { payload: verified } = await compactVerify(ours, keys[alg].publicKey);
    expect(new TextDecoder().decode(verified)).toBe(new TextDecoder().decode(payload));

    const claims = { sub: 'reader', 'feed-a': true };
    const jwtHeader = { alg, typ: 'JWT' as const };
    const times = { iat: 1_800_000_000, exp: 1_800_000_300 };
    const jwt = await signJwt(claims, jwtHeader, times, key);
    const joseJwt = await new SignJWT(claims)
      .setProtectedHeader(jwtHeader)
      .setIssuedAt(times.iat)
      .setExpirationTime(times.exp)
      .sign(key);
    expect(jwt).toBe(joseJwt);
    const { payload: read } = await jwtVerify(jwt, keys[alg].publicKey, {
      currentDate: new Date(1_800_000_100_000),
    });
    expect(read).toEqual({ ...claims, ...times });
  });
});

describe('importSigningKey', () => {
  it('takes PKCS#8 PEM, a private JWK (its own alg and use set aside) and a CryptoKey', async () => {
    const { privateKey, publicKey } = keys.RS384;
    const pem = await exportPKCS8(privateKey);
    const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig' };
    for (const input of [pem, `\r\n${pem.replaceAll('\n', '\r\n')}`, jwk, privateKey]) {
      const key = await importSigningKey(input, 'RS384', 'signer.privateKey');
      const jws = await signCompactJws(new Uint8Array([1, 2, 3]), { alg: 'RS384' }, key);
      await expect(compactVerify(jws, publicKey)).resolves.toBeDefined();
    }
  });

  const refused = async (input: unknown, alg: EventSigningAlgorithm = 'RS256') => {
    const error = await importSigningKey(input as never, alg, 'signer.privateKey').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((error as Error).message).toMatch(/^signer\.privateKey is not a/);
    return (error as Error).message;
  };

  it('refuses text that holds no PKCS#8 private key', async () => {
    await refused('not a pem');
    const pkcs1 = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs1',
      format: 'pem',
    });
    expect(pkcs1).toContain('BEGIN RSA PRIVATE KEY');
    await refused(pkcs1);
    await refused(await exportPKCS8(keys.RS256.privateKey).then((pem) => pem.replace('A', '!')));
  });

  it('refuses keys that are not RSA signing keys of 2048 bits or more', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await refused(ec.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    expect(await refused(small.export({ type: 'pkcs8', format: 'pem' }))).toContain('1024 bits');
    expect(await refused(small.export({ format: 'jwk' }))).toContain('1024 bits');
    await refused(await exportJWK(keys.RS256.publicKey));
    expect(await refused(keys.RS256.publicKey)).toContain('not an RSASSA-PKCS1-v1_5 private key');
    expect(await refused(keys.RS384.privateKey, 'RS256')).toContain('SHA-384, not SHA-256');
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    await refused(hmac);
  });

  it('refuses what is not a key at all', async () => {
    for (const input of [42, null, undefined, true]) {
      expect(await refused(input)).toContain('not a CryptoKey, a private RSA JWK or PKCS#8 PEM');
    }
  });
});
