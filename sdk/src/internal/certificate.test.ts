import { generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, Version } from '@peculiar/asn1-x509';
import { beforeAll, describe, expect, it } from 'vitest';
import { x509 } from '../../test/helpers/x509.js';
import {
  type CertificateInfo,
  KEY_USAGE,
  parseCertificate,
  parsePublicKeyInfo,
  sameBytes,
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
    expect(parsed).not.toHaveProperty('basicConstraints');
    expect(parsed).not.toHaveProperty('keyUsage');
    expect(parsed).not.toHaveProperty('extendedKeyUsage');
    expect(parsed.unknownCriticalExtensions).toEqual([]);
  });

  it('reads extendedKeyUsage and lists the critical extensions it does not understand', async () => {
    const keys = await generate({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });
    const unknown = (oid: string, critical: boolean) =>
      new x509.Extension(oid, critical, new Uint8Array([0x05, 0x00]));
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=Extensions',
      keys,
      ...validity,
      extensions: [
        new x509.ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.1', '1.2.3.4'], true),
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, true),
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'a.example' }], true),
        unknown('1.2.3.4.5', true),
        unknown('1.2.3.4.6', false),
        unknown('2.5.29.32', true),
        // A second extendedKeyUsage: the first one counts.
        new x509.ExtendedKeyUsageExtension(['2.5.29.37.0'], false),
      ],
    });
    const parsed = parse(cert);
    expect(parsed.extendedKeyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.2.3.4']);
    // certificatePolicies (2.5.29.32) is not processed either: critical, it is unknown.
    expect(parsed.unknownCriticalExtensions).toEqual(['1.2.3.4.5', '2.5.29.32']);
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

// Edge cases on P-256 keys (quick to make): names, extensions, a version 1 certificate, OIDs the
// module refuses, issuer keys it cannot use.
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const EC_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;
const ecKeys = (algorithm: Algorithm | EcKeyGenParams = EC_P256) =>
  globalThis.crypto.subtle.generateKey(algorithm as EcKeyGenParams, true, [
    'sign',
    'verify',
  ]) as Promise<CryptoKeyPair>;

async function selfSigned(
  name: x509.X509CertificateCreateParamsName,
  options: {
    keys?: CryptoKeyPair;
    signingAlgorithm?: Algorithm;
    extensions?: x509.Extension[];
  } = {},
) {
  return x509.X509CertificateGenerator.createSelfSigned({
    name,
    keys: options.keys ?? (await ecKeys()),
    signingAlgorithm: options.signingAlgorithm ?? EC_SHA256,
    ...validity,
    ...(options.extensions ? { extensions: options.extensions } : {}),
  });
}

const hex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/ /g, ''), 'hex'));

/** `der` with every occurrence of `from` replaced by `to` (same length: the DER stays valid). */
function replaceAll(der: Uint8Array, from: Uint8Array, to: Uint8Array): Uint8Array {
  const out = der.slice();
  let at = indexOf(out, from);
  expect(at).toBeGreaterThan(-1);
  while (at !== -1) {
    out.set(to, at);
    at = indexOf(out, from);
  }
  return out;
}

async function unsupportedError(cert: CertificateInfo, issuerKey = cert.publicKey) {
  const error = await verifyCertificateSignature(cert, issuerKey).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(UnsupportedAlgorithmError);
  return error as UnsupportedAlgorithmError;
}

const SHA256_WITH_RSA = hex('06 09 2A 86 48 86 F7 0D 01 01 0B');
const ECDSA_WITH_SHA256 = hex('06 08 2A 86 48 CE 3D 04 03 02');
const ONLY =
  'only RSASSA-PKCS1-v1_5 and ECDSA (P-256, P-384, P-521) with SHA-256, SHA-384 or SHA-512 are accepted';

describe('parseCertificate, edge cases', () => {
  it('renders every attribute type it has a short name for, as @peculiar/x509 does', async () => {
    const cert = await selfSigned(
      'CN=Name, L=Berlin, ST=Land, O=Org, OU=Unit, C=DE, DC=example, E=a@b.example, G=Given, I=GI, SN=Sur, T=Dr',
    );
    const parsed = parseCertificate(cert.rawData);
    expect(parsed.subject).toBe(
      'CN=Name, L=Berlin, ST=Land, O=Org, OU=Unit, C=DE, DC=example, E=a@b.example, G=Given, I=GI, SN=Sur, T=Dr',
    );
    expect(parsed.subject).toBe(cert.subject);
  });

  it('escapes a leading # or space and control characters', async () => {
    for (const [value, rendered] of [
      ['#hash', 'CN=\\#hash'],
      [' lead', 'CN=\\ lead'],
      ['tab\there', 'CN=tab\\09here'],
      ['two\r\nlines', 'CN=two\\0D\\0Alines'],
    ] as const) {
      const cert = await selfSigned(new x509.Name([{ CN: [{ utf8String: value }] }]));
      expect(parseCertificate(cert.rawData).subject).toBe(rendered);
    }
  });

  it('reads extensions in any order, the first of each kind counting', async () => {
    const keys = await ecKeys();
    const ku = (flags: x509.KeyUsageFlags) => new x509.KeyUsagesExtension(flags, true);
    const bc = (ca: boolean, pathLength?: number) =>
      new x509.BasicConstraintsExtension(ca, pathLength, true);
    const ordered = parseCertificate(
      (
        await selfSigned('CN=Ordered', {
          keys,
          extensions: [
            await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
            ku(x509.KeyUsageFlags.keyCertSign),
            bc(true, 2),
          ],
        })
      ).rawData,
    );
    expect(ordered.basicConstraints).toEqual({ ca: true, pathLength: 2 });
    expect(ordered.keyUsage).toBe(KEY_USAGE.keyCertSign);
    const twice = parseCertificate(
      (
        await selfSigned('CN=Twice', {
          keys,
          extensions: [
            bc(false),
            bc(true),
            ku(x509.KeyUsageFlags.digitalSignature),
            ku(x509.KeyUsageFlags.keyCertSign),
          ],
        })
      ).rawData,
    );
    expect(twice.basicConstraints).toEqual({ ca: false });
    expect(twice.keyUsage).toBe(KEY_USAGE.digitalSignature);
  });

  it('reads a version 1 certificate, which has no version field', async () => {
    const keys = await ecKeys();
    const certificate = AsnConvert.parse(
      (await selfSigned('CN=Version one', { keys })).rawData,
      Certificate,
    );
    certificate.tbsCertificate.version = Version.v1;
    const tbs = new Uint8Array(AsnConvert.serialize(certificate.tbsCertificate));
    // A version 1 tbsCertificate starts with the serial number (an INTEGER), not [0].
    expect(tbs[tbs[1]! & 0x80 ? 2 + (tbs[1]! & 0x7f) : 2]).toBe(0x02);
    certificate.signatureValue = new Uint8Array(
      sign('sha256', tbs, KeyObject.from(keys.privateKey)),
    ).buffer;
    const parsed = parseCertificate(AsnConvert.serialize(certificate));
    const spki = new Uint8Array(await globalThis.crypto.subtle.exportKey('spki', keys.publicKey));
    expect(parsed.subject).toBe('CN=Version one');
    expect(parsed.issuer).toBe('CN=Version one');
    expect(parsed.publicKey).toEqual(spki);
    expect(parsed.subjectDer).toEqual(parsed.issuerDer);
    expect(parsed.tbs).toEqual(tbs);
    expect(await verifyCertificateSignature(parsed, parsed.publicKey)).toBe(true);
  });

  it('says what is not DER', () => {
    expect(() => parseCertificate(new Uint8Array([0xff]))).toThrow(/^not DER: /);
  });

  it('refuses a certificate whose inner and outer signature algorithms differ', async () => {
    const mixed = new Uint8Array((await selfSigned('CN=Mixed')).rawData);
    // The OID appears twice: inside tbsCertificate, then outside it. Make the outer one SHA-384.
    const inner = indexOf(mixed, ECDSA_WITH_SHA256);
    const outer = inner + 1 + indexOf(mixed.subarray(inner + 1), ECDSA_WITH_SHA256);
    expect(outer).toBeGreaterThan(inner);
    mixed[outer + ECDSA_WITH_SHA256.length - 1] = 0x03;
    expect(() => parseCertificate(mixed)).toThrow(
      new TypeError(
        'the signature algorithm inside the certificate (1.2.840.10045.4.3.2) differs from the outer one (1.2.840.10045.4.3.3)',
      ),
    );
  });
});

describe('verifyCertificateSignature, refusals', () => {
  let rsaDer: Uint8Array;
  let ecCert: x509.X509Certificate;

  beforeAll(async () => {
    const rsaKeys = await generate({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });
    rsaDer = new Uint8Array(
      (
        await selfSigned('CN=RSA', {
          keys: rsaKeys,
          signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as Algorithm,
        })
      ).rawData,
    );
    ecCert = await selfSigned('CN=EC');
  });

  it('names every refused RSA algorithm it knows, and only the OID of others', async () => {
    for (const [last, name] of [
      [0x04, ' (md5WithRSAEncryption)'],
      [0x0a, ' (RSASSA-PSS)'],
      [0x0e, ' (sha224WithRSAEncryption)'],
      [0x02, ''],
    ] as const) {
      const to = SHA256_WITH_RSA.slice();
      to[to.length - 1] = last;
      const cert = parseCertificate(replaceAll(rsaDer, SHA256_WITH_RSA, to));
      const error = await unsupportedError(cert);
      const oid = `1.2.840.113549.1.1.${last}`;
      expect(error.oid).toBe(oid);
      expect(error.message).toBe(`unsupported signature algorithm ${oid}${name}: ${ONLY}`);
    }
  });

  it('names the refused ECDSA and EdDSA algorithms', async () => {
    const to = ECDSA_WITH_SHA256.slice();
    to[to.length - 1] = 0x01;
    const sha224 = parseCertificate(
      replaceAll(new Uint8Array(ecCert.rawData), ECDSA_WITH_SHA256, to),
    );
    expect((await unsupportedError(sha224)).message).toMatch(
      /^unsupported signature algorithm 1\.2\.840\.10045\.4\.3\.1 \(ecdsa-with-SHA224\): /,
    );

    const sha1 = parseCertificate(
      (
        await selfSigned('CN=SHA-1', {
          signingAlgorithm: { name: 'ECDSA', hash: 'SHA-1' } as Algorithm,
        })
      ).rawData,
    );
    expect((await unsupportedError(sha1)).message).toMatch(
      / 1\.2\.840\.10045\.4\.1 \(ecdsa-with-SHA1\): /,
    );

    const edKeys = await ecKeys({ name: 'Ed25519' });
    const ed = new Uint8Array(
      (await selfSigned('CN=Ed', { keys: edKeys, signingAlgorithm: { name: 'Ed25519' } })).rawData,
    );
    expect((await unsupportedError(parseCertificate(ed))).message).toMatch(
      / 1\.3\.101\.112 \(Ed25519\): /,
    );
    const ed448 = replaceAll(ed, hex('06 03 2B 65 70'), hex('06 03 2B 65 71'));
    expect((await unsupportedError(parseCertificate(ed448))).message).toMatch(
      / 1\.3\.101\.113 \(Ed448\): /,
    );
  });

  it('refuses an issuer key on a curve it does not know, or with explicit curve parameters', async () => {
    const cert = parseCertificate(ecCert.rawData);
    const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    const k1Spki = new Uint8Array(k1.publicKey.export({ type: 'spki', format: 'der' }));
    const curve = await unsupportedError(cert, k1Spki);
    expect(curve.oid).toBe('1.3.132.0.10');
    expect(curve.message).toBe(`unsupported elliptic curve 1.3.132.0.10: ${ONLY}`);
    const explicit = generateKeyPairSync('ec', { namedCurve: 'P-256', paramEncoding: 'explicit' });
    const explicitSpki = new Uint8Array(explicit.publicKey.export({ type: 'spki', format: 'der' }));
    const error = await unsupportedError(cert, explicitSpki);
    expect(error.message).toBe(`unsupported elliptic curve with explicit parameters: ${ONLY}`);
  });

  it('answers false for an issuer key WebCrypto cannot import', async () => {
    const cert = parseCertificate(ecCert.rawData);
    const spki = cert.publicKey.slice();
    // The last byte of the point: no longer on the curve.
    spki[spki.length - 1] = (spki[spki.length - 1] ?? 0) ^ 0xff;
    expect(await verifyCertificateSignature(cert, spki)).toBe(false);
    expect(await verifyCertificateSignature(cert, cert.publicKey)).toBe(true);
  });
});

describe('sameBytes', () => {
  it('is true for the same bytes only, lengths included', () => {
    const bytes = (...values: number[]) => new Uint8Array(values);
    expect(sameBytes(bytes(1, 2, 3), bytes(1, 2, 3))).toBe(true);
    expect(sameBytes(bytes(), bytes())).toBe(true);
    expect(sameBytes(bytes(1, 2), bytes(1, 2, 3))).toBe(false);
    expect(sameBytes(bytes(1, 2, 3), bytes(1, 2))).toBe(false);
    expect(sameBytes(bytes(1, 2, 3), bytes(1, 2, 4))).toBe(false);
  });
});
