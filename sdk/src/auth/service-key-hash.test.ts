import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, type TestPki } from '../../test/helpers/test-pki.js';
import { canonicalPublicKeyPem, computeServiceKeyHash } from './service-key-hash.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Re-wraps a PEM body at `width` characters with `eol` line ends. */
function rewrap(pem: string, width: number, eol: string): string {
  const [, label, body] = /-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END/.exec(pem)!;
  const base64 = body!.replace(/\s+/g, '');
  const lines = width > 0 ? base64.match(new RegExp(`.{1,${width}}`, 'g'))! : [base64];
  return `-----BEGIN ${label}-----${eol}${lines.join(eol)}${eol}-----END ${label}-----`;
}

let spkiPem: string;
let pkcs1Pem: string;
let expected: string;
let pki: TestPki;

beforeAll(async () => {
  pki = await createTestPki();
  const spki = await globalThis.crypto.subtle.exportKey('spki', pki.signingKey.keys.publicKey);
  const publicKey = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  // Node writes exactly the canonical form: 64-character lines, \n, one trailing \n.
  spkiPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  pkcs1Pem = publicKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  expected = sha256(spkiPem);
});

describe('computeServiceKeyHash', () => {
  it('equals sha256 over the canonical SPKI PEM, in lowercase hex', async () => {
    const hash = await computeServiceKeyHash(spkiPem);
    expect(hash).toBe(expected);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(canonicalPublicKeyPem(spkiPem)).toBe(spkiPem);
  });

  it('gives the same hash for differently wrapped and encoded inputs', async () => {
    const variants = [
      spkiPem.replace(/\n/g, '\r\n'),
      rewrap(spkiPem, 76, '\n'),
      rewrap(spkiPem, 0, '\n'),
      rewrap(spkiPem, 40, '\r\n'),
      `\n\n  ${spkiPem}\n\n`,
      `key follows:\n${spkiPem.trimEnd()}`,
      pkcs1Pem,
      rewrap(pkcs1Pem, 70, '\r\n'),
    ];
    for (const variant of variants) {
      expect(await computeServiceKeyHash(variant)).toBe(expected);
    }
  });

  it('uses the subject public key of a certificate PEM', async () => {
    const certPem = pki.signingKey.certPem;
    const canonical = createPublicKey(certPem).export({ type: 'spki', format: 'pem' }) as string;
    expect(await computeServiceKeyHash(certPem)).toBe(sha256(canonical));
    expect(await computeServiceKeyHash(rewrap(certPem, 72, '\r\n'))).toBe(sha256(canonical));
  });

  it('handles non-RSA SPKI keys too', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    expect(await computeServiceKeyHash(rewrap(pem, 50, '\r\n'))).toBe(sha256(pem));
  });

  it('refuses anything that is not a public key with INVALID_ARGUMENT', async () => {
    const bad = [
      '',
      'not a pem',
      '-----BEGIN PUBLIC KEY-----\n!!!\n-----END PUBLIC KEY-----\n',
      '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n',
      '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
      42 as unknown as string,
    ];
    for (const input of bad) {
      await expect(computeServiceKeyHash(input)).rejects.toMatchObject({
        name: 'LicensingError',
        code: 'INVALID_ARGUMENT',
      });
    }
  });
});
