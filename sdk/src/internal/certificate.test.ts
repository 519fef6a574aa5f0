import { x509 } from '@test/helpers/x509.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CertificateInfo,
  KEY_USAGE,
  parseCertificate,
  parsePublicKeyInfo,
  UnsupportedAlgorithmError,
  verifyCertificateSignature,
} from './certificate.js';

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;
const validity = { notBefore: new Date(T0 - DAY), notAfter: new Date(T0 + 365 * DAY) };

type KeyKind =
  | { name: 'RSASSA-PKCS1-v1_5'; hash: string }
  | { name: 'ECDSA'; namedCurve: string; hash: string };

function generate(kind: KeyKind): Promise<CryptoKeyPair> {
  const params =
    kind.name === 'ECDSA'
      ? { name: 'ECDSA', namedCurve: kind.namedCurve }
      : {
          name: kind.name,
          hash: kind.hash,
          modulusLength: 2048,
          publicExponent: new Uint8Array([1, 0, 1]),
        };
  return globalThis.crypto.subtle.generateKey(params, true, [
    'sign',
    'verify',
  ]) as Promise<CryptoKeyPair>;
}

function signingAlgorithm(kind: KeyKind) {
  return kind.name === 'ECDSA'
    ? { name: 'ECDSA', hash: kind.hash }
    : { name: 'RSASSA-PKCS1-v1_5', hash: kind.hash };
}

/** A self-signed CA and a leaf it issued, both signed with `kind`, made by @peculiar/x509. */
async function createPair(kind: KeyKind, name: string) {
  const caKeys = await generate(kind);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name} CA, O=Example Org, C=DE`,
    keys: caKeys,
    signingAlgorithm: signingAlgorithm(kind),
    ...validity,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
    ],
  });
  const leafKeys = await generate(kind);
  const leaf = await x509.X509CertificateGenerator.create({
    subject: `CN=${name} leaf`,
    issuer: ca.subject,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: signingAlgorithm(kind),
    ...validity,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
  return { ca, leaf };
}

const parse = (cert: x509.X509Certificate) => parseCertificate(new Uint8Array(cert.rawData));

const KINDS: Array<[string, KeyKind, string]> = [
  ['RSA SHA-256', { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, '1.2.840.113549.1.1.11'],
  ['RSA SHA-384', { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' }, '1.2.840.113549.1.1.12'],
  ['RSA SHA-512', { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' }, '1.2.840.113549.1.1.13'],
  [
    'ECDSA P-256 SHA-256',
    { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' },
    '1.2.840.10045.4.3.2',
  ],
  [
    'ECDSA P-384 SHA-384',
    { name: 'ECDSA', namedCurve: 'P-384', hash: 'SHA-384' },
    '1.2.840.10045.4.3.3',
  ],
  [
    'ECDSA P-521 SHA-512',
    { name: 'ECDSA', namedCurve: 'P-521', hash: 'SHA-512' },
    '1.2.840.10045.4.3.4',
  ],
  [
    'ECDSA P-256 SHA-384',
    { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-384' },
    '1.2.840.10045.4.3.3',
  ],
];

describe.each(KINDS)('verifyCertificateSignature, %s', (_label, kind, oid) => {
  let ca: x509.X509Certificate;
  let leaf: x509.X509Certificate;
  let other: x509.X509Certificate;

  beforeAll(async () => {
    ({ ca, leaf } = await createPair(kind, 'Signature'));
    ({ ca: other } = await createPair(kind, 'Other'));
  });

  it('accepts what the issuer signed, as @peculiar/x509 does', async () => {
    const parsedCa = parse(ca);
    const parsedLeaf = parse(leaf);
    expect(parsedLeaf.signatureAlgorithm).toBe(oid);
    expect(await verifyCertificateSignature(parsedLeaf, parsedCa.publicKey)).toBe(true);
    expect(await verifyCertificateSignature(parsedCa, parsedCa.publicKey)).toBe(true);
    expect(await leaf.verify({ publicKey: ca.publicKey, signatureOnly: true })).toBe(true);
  });

  it('refuses another key, a tampered certificate and a tampered signature', async () => {
    const parsedLeaf = parse(leaf);
    expect(await verifyCertificateSignature(parsedLeaf, parse(other).publicKey)).toBe(false);
    expect(await verifyCertificateSignature(parsedLeaf, parsedLeaf.publicKey)).toBe(false);

    // One byte of the subject's common name changed: still a certificate, no longer signed.
    const der = new Uint8Array(leaf.rawData);
    const name = new TextEncoder().encode('Signature leaf');
    const at = indexOf(der, name);
    expect(at).toBeGreaterThan(0);
    const tampered = der.slice();
    tampered[at] = 'Z'.charCodeAt(0);
    const parsedTampered = parseCertificate(tampered);
    expect(parsedTampered.subject).toBe('CN=Zignature leaf');
    expect(await verifyCertificateSignature(parsedTampered, parse(ca).publicKey)).toBe(false);

    const flipped: CertificateInfo = { ...parsedLeaf, signature: parsedLeaf.signature.slice() };
    flipped.signature[flipped.signature.length - 1]! ^= 1;
    expect(await verifyCertificateSignature(flipped, parse(ca).publicKey)).toBe(false);
  });
});

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

describe('verifyCertificateSignature with other algorithms', () => {
  it('refuses SHA-1 with UnsupportedAlgorithmError naming the OID', async () => {
    const kind = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-1' } as const;
    const { ca, leaf } = await createPair(kind, 'Sha1');
    const error = await verifyCertificateSignature(parse(leaf), parse(ca).publicKey).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(UnsupportedAlgorithmError);
    expect((error as UnsupportedAlgorithmError).oid).toBe('1.2.840.113549.1.1.5');
    expect((error as Error).message).toMatch(
      /1\.2\.840\.113549\.1\.1\.5 \(sha1WithRSAEncryption\)/,
    );
  });

  it('refuses RSASSA-PSS naming the OID', async () => {
    const keys = (await globalThis.crypto.subtle.generateKey(
      {
        name: 'RSA-PSS',
        hash: 'SHA-256',
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
      },
      true,
      ['sign', 'verify'],
    )) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=PSS',
      keys,
      signingAlgorithm: { name: 'RSA-PSS', hash: 'SHA-256', saltLength: 32 } as Algorithm,
      ...validity,
    });
    const parsed = parse(cert);
    await expect(verifyCertificateSignature(parsed, parsed.publicKey)).rejects.toMatchObject({
      name: 'UnsupportedAlgorithmError',
      oid: '1.2.840.113549.1.1.10',
    });
  });

  it('answers false, not an error, when the issuer key does not fit the algorithm', async () => {
    const { leaf } = await createPair({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, 'Rsa');
    const { ca: ecCa } = await createPair(
      { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' },
      'Ec',
    );
    expect(await verifyCertificateSignature(parse(leaf), parse(ecCa).publicKey)).toBe(false);
    expect(await verifyCertificateSignature(parse(ecCa), parse(leaf).publicKey)).toBe(false);
    expect(await verifyCertificateSignature(parse(leaf), new Uint8Array([1, 2, 3]))).toBe(false);
  });
});

describe('parseCertificate', () => {
  let ca: x509.X509Certificate;
  let leaf: x509.X509Certificate;

  beforeAll(async () => {
    ({ ca, leaf } = await createPair({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, 'Parse'));
  });

  it('reads names, dates, key and extensions as @peculiar/x509 does', () => {
    const parsedCa = parse(ca);
    const parsedLeaf = parse(leaf);
    expect(parsedCa.subject).toBe('CN=Parse CA, O=Example Org, C=DE');
    expect(parsedCa.subject).toBe(ca.subject);
    expect(parsedCa.issuer).toBe(ca.issuer);
    expect(parsedLeaf.subject).toBe('CN=Parse leaf');
    expect(parsedLeaf.issuer).toBe(ca.subject);
    expect(parsedLeaf.notBefore).toEqual(leaf.notBefore);
    expect(parsedLeaf.notAfter).toEqual(leaf.notAfter);
    expect(parsedLeaf.der).toEqual(new Uint8Array(leaf.rawData));
    expect(parsedLeaf.publicKey).toEqual(new Uint8Array(leaf.publicKey.rawData));
    expect(parsedLeaf.issuerDer).toEqual(parsedCa.subjectDer);
    expect(parsedCa.issuerDer).toEqual(parsedCa.subjectDer);

    expect(parsedCa.basicConstraints).toEqual({ ca: true, pathLength: 0 });
    expect(parsedCa.keyUsage).toBe(KEY_USAGE.keyCertSign | KEY_USAGE.cRLSign);
    expect(parsedLeaf.basicConstraints).toEqual({ ca: false });
    expect(parsedLeaf.keyUsage).toBe(KEY_USAGE.digitalSignature);
  });

  it('leaves absent extensions undefined', async () => {
    const keys = await generate({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });
    const bare = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=Bare',
      keys,
      ...validity,
    });
    const parsed = parse(bare);
    expect(parsed.basicConstraints).toBeUndefined();
    expect(parsed.keyUsage).toBeUndefined();
  });

  it('renders multi-valued RDNs, escapes, unknown attribute types and encodings', async () => {
    const keys = await generate({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      name: [
        { CN: ['Smith, John'], '2.5.4.5': ['1234'] },
        { O: ['A+B <co>; end '] },
        { '1.2.3.4': ['#0403616263'] },
        { DC: ['example'] },
      ],
      keys,
      ...validity,
    });
    const parsed = parse(cert);
    expect(parsed.subject).toBe(
      'CN=Smith\\, John+2.5.4.5=1234, O=A\\+B \\<co\\>\\; end\\ , 1.2.3.4=#0403616263, DC=example',
    );
    expect(parsed.subject).toBe(cert.subject);
  });

  it('tells names apart by their DER bytes, not their text', async () => {
    const keys = await generate({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });
    const make = (value: Record<string, string>) =>
      x509.X509CertificateGenerator.createSelfSigned({
        name: [{ CN: [value as never] }],
        keys,
        ...validity,
      });
    const utf8 = parse(await make({ utf8String: 'Same' }));
    const printable = parse(await make({ printableString: 'Same' }));
    expect(utf8.subject).toBe(printable.subject);
    expect(utf8.subjectDer).not.toEqual(printable.subjectDer);
  });

  it('refuses what is not one DER certificate', () => {
    const der = new Uint8Array(leaf.rawData);
    expect(() => parseCertificate(new Uint8Array([...der, 0]))).toThrow(/trailing/);
    expect(() => parseCertificate(der.subarray(0, der.length - 10))).toThrow();
    expect(() => parseCertificate(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01]))).toThrow();
    expect(() => parseCertificate(new Uint8Array(leaf.publicKey.rawData))).toThrow();
  });
});

describe('parsePublicKeyInfo', () => {
  it('reads the key algorithm of an SPKI and refuses anything else', async () => {
    const { ca } = await createPair(
      { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' },
      'Spki',
    );
    expect(parsePublicKeyInfo(new Uint8Array(ca.publicKey.rawData))).toEqual({
      algorithm: '1.2.840.10045.2.1',
    });
    expect(() => parsePublicKeyInfo(new Uint8Array(ca.rawData))).toThrow();
    expect(() => parsePublicKeyInfo(new Uint8Array([1, 2, 3]))).toThrow();
  });
});
