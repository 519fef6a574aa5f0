import { createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { type Measured, measureSync } from './bench-helpers.js';

/** A lease-sized signing input (header.payload of a standby token), for the raw references. */
export function leaseSigningInput(): Buffer {
  const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const iat = Math.floor(Date.now() / 1000);
  return Buffer.from(
    `${segment({ alg: 'RS256', kid: 'bench-key', typ: 'JWT' })}.${segment({
      ItemA: true,
      lic: '2f0c4a8e-61b5-4a2f-9d0e-2a4b7f0e9c11',
      jti: 'a3c1e7d2-5b8f-4c6a-8e1d-7f2b9a0c4d35',
      iss: 'http://127.0.0.1:40000/standby',
      sub: 'bench-user',
      iat,
      exp: iat + 28_800,
      rfr: iat + 21_600,
      hw: 'hw-1',
      version: '1.0.0',
    })}`,
  );
}

/** A fresh RSA-2048 key pair. */
export function rsa2048(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

/**
 * Raw `crypto.sign('sha256', …)` RSA-2048 (PKCS#1 v1.5) signatures over `input`, one core (a
 * synchronous loop on this thread).
 */
export function measureRawSign(privateKey: KeyObject, input: Buffer, durationMs: number): Measured {
  return measureSync(() => sign('sha256', input, privateKey), durationMs);
}

/** Raw `crypto.verify` RSA-2048 of `signature` over `input`, one core. */
export function measureRawVerify(
  publicKey: KeyObject,
  input: Buffer,
  signature: Buffer,
  durationMs: number,
): Measured {
  return measureSync(() => {
    if (!verify('sha256', input, publicKey, signature)) throw new Error('reference verify failed');
  }, durationMs);
}

/** A public KeyObject from an RSA JWK (`n`, `e`). */
export function publicKeyFromJwk(jwk: { n: string; e: string }): KeyObject {
  return createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
}
