import { beforeAll, describe, expect, it, vi } from 'vitest';
import { x509 } from '../../test/helpers/x509.js';
import { encodeBase64 } from '../internal/base64.js';
import {
  parseCertificate,
  UnsupportedAlgorithmError,
  verifyCertificateSignature,
} from '../internal/certificate.js';
import {
  assertPathValidAt,
  ChainError,
  type TrustAnchor,
  verifyCertificateChain,
} from './certificate-chain.js';

// The real signature check, spied on so one test can make it throw.
vi.mock('../internal/certificate.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../internal/certificate.js')>();
  return { ...original, verifyCertificateSignature: vi.fn(original.verifyCertificateSignature) };
});

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;
const validity = { notBefore: new Date(T0 - DAY), notAfter: new Date(T0 + 365 * DAY) };
const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
};
const EC = { name: 'ECDSA', namedCurve: 'P-384' };
const EC_SIGN = { name: 'ECDSA', hash: 'SHA-256' };

const keysOf = (params: RsaHashedKeyGenParams | EcKeyGenParams) =>
  globalThis.crypto.subtle.generateKey(params, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;

const caExtensions = (pathLength?: number) => [
  new x509.BasicConstraintsExtension(true, pathLength, true),
  new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
];
const leafExtensions = () => [
  new x509.BasicConstraintsExtension(false, undefined, true),
  new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
];

interface Ca {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
  signingAlgorithm: Algorithm | EcdsaParams;
}

async function issue(
  issuer: Ca,
  subject: x509.X509CertificateCreateParamsName,
  keys: CryptoKeyPair,
  extensions: x509.Extension[],
  /** What the new certificate signs with when it issues in turn. */
  signingAlgorithm: Algorithm | EcdsaParams = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
): Promise<Ca> {
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: issuer.cert.subjectName,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: issuer.signingAlgorithm,
    ...validity,
    extensions,
  });
  return { cert, keys, signingAlgorithm };
}

const b64 = (cert: x509.X509Certificate) => encodeBase64(cert.rawData);
const anchorOf = (ca: Ca): TrustAnchor => {
  const cert = parseCertificate(new Uint8Array(ca.cert.rawData));
  return { cert, der: cert.der };
};

async function refusal(promise: Promise<unknown>): Promise<ChainError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ChainError);
  return error as ChainError;
}

let ecRoot: Ca;
let rsaKeys: CryptoKeyPair;

beforeAll(async () => {
  const keys = await keysOf(EC);
  const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-384' };
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=EC Root, O=Example',
    keys,
    signingAlgorithm,
    ...validity,
    extensions: caExtensions(1),
  });
  ecRoot = { cert, keys, signingAlgorithm };
  rsaKeys = await keysOf(RSA);
});

describe('verifyCertificateChain', () => {
  it('verifies an RSA leaf under an ECDSA intermediate and root, with or without the root', async () => {
    const inter = await issue(ecRoot, 'CN=EC Intermediate', await keysOf(EC), caExtensions(0), {
      name: 'ECDSA',
      hash: 'SHA-256',
    });
    const leaf = await issue(inter, 'CN=RSA leaf', rsaKeys, leafExtensions());
    const full = await verifyCertificateChain(
      [b64(leaf.cert), b64(inter.cert), b64(ecRoot.cert)],
      [anchorOf(ecRoot)],
    );
    expect(full.validity.map((entry) => [entry.label, entry.subject])).toEqual([
      ['x5c[0]', 'CN=RSA leaf'],
      ['x5c[1]', 'CN=EC Intermediate'],
      ['embedded root', 'CN=EC Root, O=Example'],
    ]);
    expect(full.leaf.publicKey).toEqual(new Uint8Array(leaf.cert.publicKey.rawData));

    const belowRoot = await verifyCertificateChain(
      [b64(leaf.cert), b64(inter.cert)],
      [anchorOf(ecRoot)],
    );
    expect(belowRoot.validity.map((entry) => entry.label)).toEqual([
      'x5c[0]',
      'x5c[1]',
      'embedded root',
    ]);
  });

  it('refuses more intermediates than the root allows', async () => {
    const first = await issue(ecRoot, 'CN=First', await keysOf(EC), caExtensions(), EC_SIGN);
    const second = await issue(first, 'CN=Second', await keysOf(EC), caExtensions(), EC_SIGN);
    const leaf = await issue(second, 'CN=Deep leaf', rsaKeys, leafExtensions());
    const error = await refusal(
      verifyCertificateChain(
        [b64(leaf.cert), b64(second.cert), b64(first.cert)],
        [anchorOf(ecRoot)],
      ),
    );
    expect(error.message).toMatch(
      /embedded root \(CN=EC Root, O=Example\) allows 1 intermediate certificates below it, the chain has 2/,
    );
  });

  it('links issuer to subject by DER bytes: the same text in another string type does not match', async () => {
    // The root's CN is a PrintableString (what @peculiar/x509 picks for such text); a certificate
    // naming its issuer with a UTF8String of the same text renders identically but is not issued
    // by that name (RFC 5280 7.1 would allow matching them after normalising; we compare bytes).
    const cert = await x509.X509CertificateGenerator.create({
      subject: 'CN=Lookalike leaf',
      issuer: new x509.Name([{ CN: [{ utf8String: 'EC Root' }] }, { O: ['Example'] }]),
      publicKey: rsaKeys.publicKey,
      signingKey: ecRoot.keys.privateKey,
      signingAlgorithm: ecRoot.signingAlgorithm,
      ...validity,
      extensions: leafExtensions(),
    });
    expect(cert.issuer).toBe(ecRoot.cert.subject);
    const error = await refusal(
      verifyCertificateChain([b64(cert), b64(ecRoot.cert)], [anchorOf(ecRoot)]),
    );
    expect(error.message).toBe(
      'x5c[0] is issued by CN=EC Root, O=Example, but the next certificate is CN=EC Root, O=Example',
    );
    const alone = await refusal(verifyCertificateChain([b64(cert)], [anchorOf(ecRoot)]));
    expect(alone.message).toMatch(/neither an embedded root nor signed by one/);
  });

  it('names the OID of a signature algorithm it cannot check', async () => {
    const sha1Keys = await keysOf({ ...RSA, hash: 'SHA-1' });
    const sha1Root: Ca = {
      cert: await x509.X509CertificateGenerator.createSelfSigned({
        name: 'CN=SHA-1 Root',
        keys: sha1Keys,
        signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-1' },
        ...validity,
        extensions: caExtensions(),
      }),
      keys: sha1Keys,
      signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-1' },
    };
    const leaf = await issue(sha1Root, 'CN=SHA-1 leaf', rsaKeys, leafExtensions());
    const error = await refusal(
      verifyCertificateChain([b64(leaf.cert), b64(sha1Root.cert)], [anchorOf(sha1Root)]),
    );
    expect(error.failure).toBe('chain');
    expect(error.message).toMatch(
      /^x5c\[0\] \(CN=SHA-1 leaf\) uses an unsupported signature algorithm 1\.2\.840\.113549\.1\.1\.5 \(sha1WithRSAEncryption\)/,
    );
  });

  it('refuses a tampered certificate, a leaf without digitalSignature and malformed input', async () => {
    const leaf = await issue(ecRoot, 'CN=Tamper leaf', rsaKeys, leafExtensions());
    const der = new Uint8Array(leaf.cert.rawData);
    const at = Buffer.from(der).indexOf('Tamper leaf');
    const tampered = der.slice();
    tampered[at] = 'D'.charCodeAt(0);
    const bad = await refusal(
      verifyCertificateChain([encodeBase64(tampered), b64(ecRoot.cert)], [anchorOf(ecRoot)]),
    );
    expect(bad.message).toBe('the signature of x5c[0] (CN=Damper leaf) does not verify');

    const noSign = await issue(ecRoot, 'CN=No sign', rsaKeys, caExtensions());
    expect(
      (await refusal(verifyCertificateChain([b64(noSign.cert)], [anchorOf(ecRoot)]))).message,
    ).toMatch(/x5c\[0\] \(CN=No sign\) lacks the digitalSignature key usage/);

    for (const [x5c, message] of [
      [[], /no x5c/],
      ['not-an-array', /no x5c/],
      [[42], /x5c\[0\] is not a base64 DER certificate/],
      [['!!'], /x5c\[0\] is not a base64 DER certificate/],
      [[b64(leaf.cert), encodeBase64(new Uint8Array([0x30, 0]))], /x5c\[1\] is not a base64 DER/],
      [Array.from({ length: 9 }, () => b64(leaf.cert)), /more than 8/],
    ] as const) {
      expect((await refusal(verifyCertificateChain(x5c, [anchorOf(ecRoot)]))).message).toMatch(
        message,
      );
    }
  });
});

describe('verifyCertificateChain, more', () => {
  it('names its errors ChainError and keeps the cause of a parse failure only', async () => {
    const parse = await refusal(verifyCertificateChain(['AAAA'], [anchorOf(ecRoot)]));
    expect(parse.name).toBe('ChainError');
    expect(parse.cause).toBeDefined();
    const empty = await refusal(verifyCertificateChain([], [anchorOf(ecRoot)]));
    expect('cause' in empty).toBe(false);
  });

  it('refuses an x5c entry that is not a string, even bytes of a certificate', async () => {
    const leaf = await issue(ecRoot, 'CN=Bytes leaf', rsaKeys, leafExtensions());
    const bytes = Array.from(new Uint8Array(leaf.cert.rawData));
    const error = await refusal(verifyCertificateChain([bytes], [anchorOf(ecRoot)]));
    expect(error.message).toBe('x5c[0] is not a base64 DER certificate');
    expect((error.cause as Error).message).toBe('not a string');
  });

  it('takes a chain of eight certificates, the most it allows', async () => {
    const keys = await keysOf(EC);
    const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' };
    const root: Ca = {
      cert: await x509.X509CertificateGenerator.createSelfSigned({
        name: 'CN=Deep Root',
        keys,
        signingAlgorithm,
        ...validity,
        extensions: caExtensions(),
      }),
      keys,
      signingAlgorithm,
    };
    let issuer = root;
    const chain = [root];
    for (let depth = 1; depth <= 6; depth++) {
      issuer = await issue(issuer, `CN=Level ${depth}`, await keysOf(EC), caExtensions(), EC_SIGN);
      chain.unshift(issuer);
    }
    const leaf = await issue(issuer, 'CN=Deepest leaf', rsaKeys, leafExtensions());
    const x5c = [leaf, ...chain].map((ca) => b64(ca.cert));
    expect(x5c).toHaveLength(8);
    const path = await verifyCertificateChain(x5c, [anchorOf(root)]);
    expect(path.validity).toHaveLength(8);
    expect(path.validity[7]!.label).toBe('embedded root');
  });

  it('refuses an issuer without basicConstraints, and takes a CA without keyUsage', async () => {
    const plainKeys = await keysOf(EC);
    const plain = await issue(ecRoot, 'CN=No constraints', plainKeys, [], EC_SIGN);
    const under = await issue(plain, 'CN=Under plain', rsaKeys, leafExtensions());
    const error = await refusal(
      verifyCertificateChain([b64(under.cert), b64(plain.cert)], [anchorOf(ecRoot)]),
    );
    expect(error.message).toBe('x5c[1] (CN=No constraints) issues certificates but is not a CA');

    const bare = await issue(
      ecRoot,
      'CN=CA without keyUsage',
      await keysOf(EC),
      [new x509.BasicConstraintsExtension(true, undefined, true)],
      EC_SIGN,
    );
    const leaf = await issue(bare, 'CN=Under bare', rsaKeys, leafExtensions());
    const path = await verifyCertificateChain([b64(leaf.cert), b64(bare.cert)], [anchorOf(ecRoot)]);
    expect(path.validity.map((entry) => entry.subject)).toEqual([
      'CN=Under bare',
      'CN=CA without keyUsage',
      'CN=EC Root, O=Example',
    ]);
  });

  it('counts a signature check that throws as not signed, never as signed', async () => {
    const leaf = await issue(ecRoot, 'CN=Throwing check', rsaKeys, leafExtensions());
    const failing = () =>
      vi.mocked(verifyCertificateSignature).mockRejectedValueOnce(new TypeError('engine failure'));
    failing();
    const linked = await refusal(
      verifyCertificateChain([b64(leaf.cert), b64(ecRoot.cert)], [anchorOf(ecRoot)]),
    );
    expect(linked.message).toBe('the signature of x5c[0] (CN=Throwing check) does not verify');
    failing();
    const searched = await refusal(verifyCertificateChain([b64(leaf.cert)], [anchorOf(ecRoot)]));
    expect(searched.message).toBe(
      'the chain ends at x5c[0] (CN=Throwing check, issued by CN=EC Root, O=Example), which is neither an embedded root nor signed by one',
    );
    // Without the failure, the same chain verifies.
    await expect(
      verifyCertificateChain([b64(leaf.cert)], [anchorOf(ecRoot)]),
    ).resolves.toBeDefined();
  });

  it('names the certificate an anchor signed with an algorithm it cannot check', async () => {
    const sha1Keys = await keysOf({ ...RSA, hash: 'SHA-1' });
    const signingAlgorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-1' };
    const sha1Root: Ca = {
      cert: await x509.X509CertificateGenerator.createSelfSigned({
        name: 'CN=Old Root',
        keys: sha1Keys,
        signingAlgorithm,
        ...validity,
        extensions: caExtensions(),
      }),
      keys: sha1Keys,
      signingAlgorithm,
    };
    const inter = await issue(
      sha1Root,
      'CN=Old intermediate',
      await keysOf(EC),
      caExtensions(),
      EC_SIGN,
    );
    const leaf = await issue(inter, 'CN=Old leaf', rsaKeys, leafExtensions());
    const error = await refusal(
      verifyCertificateChain([b64(leaf.cert), b64(inter.cert)], [anchorOf(sha1Root)]),
    );
    expect(error.message).toMatch(
      /^x5c\[1\] \(CN=Old intermediate\) uses an unsupported signature algorithm 1\.2\.840\.113549\.1\.1\.5/,
    );
    expect(error.cause).toBeInstanceOf(UnsupportedAlgorithmError);
  });
});

describe('verifyCertificateChain, what a certificate is for', () => {
  const unknownCritical = () => new x509.Extension('1.2.3.4.5', true, new Uint8Array([5, 0]));
  const eku = (...usages: string[]) => new x509.ExtendedKeyUsageExtension(usages);
  const SERVER = '1.3.6.1.5.5.7.3.1';
  const OTHERS = [
    SERVER,
    '1.3.6.1.5.5.7.3.2',
    '1.3.6.1.5.5.7.3.3',
    '1.3.6.1.5.5.7.3.4',
    '1.3.6.1.5.5.7.3.8',
    '1.3.6.1.5.5.7.3.9',
  ];

  it.each(OTHERS)('refuses a leaf whose extendedKeyUsage is only %s', async (usage) => {
    const leaf = await issue(ecRoot, 'CN=Other purpose', rsaKeys, [
      ...leafExtensions(),
      eku(usage),
    ]);
    const error = await refusal(verifyCertificateChain([b64(leaf.cert)], [anchorOf(ecRoot)]));
    expect(error.message).toMatch(
      /^x5c\[0\] \(CN=Other purpose\) is a certificate for .+ \(its extendedKeyUsage\), not for signing leases$/,
    );
  });

  it('names every purpose of a leaf issued for several others', async () => {
    const leaf = await issue(ecRoot, 'CN=TLS', rsaKeys, [
      ...leafExtensions(),
      eku(SERVER, '1.3.6.1.5.5.7.3.2'),
    ]);
    const error = await refusal(verifyCertificateChain([b64(leaf.cert)], [anchorOf(ecRoot)]));
    expect(error.message).toContain('a certificate for TLS server, TLS client');
  });

  it('takes a leaf whose extendedKeyUsage also names any purpose or one of its own', async () => {
    for (const usages of [['2.5.29.37.0'], ['1.2.3.4.5.6'], [SERVER, '1.2.3.4.5.6']]) {
      const leaf = await issue(ecRoot, 'CN=Leases', rsaKeys, [...leafExtensions(), eku(...usages)]);
      const path = await verifyCertificateChain([b64(leaf.cert)], [anchorOf(ecRoot)]);
      expect(path.leaf.extendedKeyUsage).toEqual(usages);
    }
  });

  it('refuses an extendedKeyUsage that names no purpose (RFC 5280 requires one)', async () => {
    const leaf = await issue(ecRoot, 'CN=Empty', rsaKeys, [...leafExtensions(), eku()]);
    const error = await refusal(verifyCertificateChain([b64(leaf.cert)], [anchorOf(ecRoot)]));
    expect(error.message).toBe('x5c[0] (CN=Empty) has an extendedKeyUsage naming no purpose');
  });

  it('refuses an unknown critical extension in the leaf or an intermediate, naming it', async () => {
    const leaf = await issue(ecRoot, 'CN=Critical leaf', rsaKeys, [
      ...leafExtensions(),
      unknownCritical(),
    ]);
    const error = await refusal(verifyCertificateChain([b64(leaf.cert)], [anchorOf(ecRoot)]));
    expect(error.message).toBe(
      'x5c[0] (CN=Critical leaf) has the unknown critical extension 1.2.3.4.5',
    );

    const intermediate = await issue(ecRoot, 'CN=Critical CA', await keysOf(RSA), [
      ...caExtensions(0),
      unknownCritical(),
    ]);
    const below = await issue(intermediate, 'CN=Below', rsaKeys, leafExtensions());
    const chain = [b64(below.cert), b64(intermediate.cert)];
    expect((await refusal(verifyCertificateChain(chain, [anchorOf(ecRoot)]))).message).toBe(
      'x5c[1] (CN=Critical CA) has the unknown critical extension 1.2.3.4.5',
    );
  });

  it('does not judge the embedded root by its extensions (the app chose to trust it)', async () => {
    const keys = await keysOf(RSA);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=Root with policies',
      keys,
      ...validity,
      extensions: [...caExtensions(), unknownCritical()],
    });
    const root: Ca = {
      cert,
      keys,
      signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    };
    const leaf = await issue(root, 'CN=Under it', rsaKeys, leafExtensions());
    for (const chain of [[b64(leaf.cert)], [b64(leaf.cert), b64(root.cert)]]) {
      await expect(verifyCertificateChain(chain, [anchorOf(root)])).resolves.toBeDefined();
    }
  });
});

describe('assertPathValidAt', () => {
  const T = Date.UTC(2030, 6, 1);
  const path = [
    { label: 'x5c[0]', subject: 'CN=Leaf', notBefore: T - DAY, notAfter: T + DAY },
    { label: 'embedded root', subject: 'CN=Root', notBefore: T - 10 * DAY, notAfter: T + 10 * DAY },
  ];
  const failureAt = (at: number, toleranceMs = 60_000) => {
    try {
      assertPathValidAt(path, at, toleranceMs);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ChainError);
      return error as ChainError;
    }
  };

  it('accepts every time from notBefore to notAfter, widened by the tolerance on both ends', () => {
    for (const at of [T, T - DAY - 60_000, T + DAY + 60_000, T - DAY + 1, T + DAY - 30_000]) {
      expect(failureAt(at)).toBeUndefined();
    }
  });

  it('refuses a certificate before its notBefore, beyond the tolerance', () => {
    const error = failureAt(T - DAY - 60_001);
    expect(error?.failure).toBe('certificate-not-yet-valid');
    expect(error?.message).toBe(
      `x5c[0] (CN=Leaf) is not valid before ${new Date(T - DAY).toISOString()}`,
    );
  });

  it('refuses a certificate after its notAfter, beyond the tolerance, naming which', () => {
    const error = failureAt(T + DAY + 60_001);
    expect(error?.failure).toBe('certificate-expired');
    expect(error?.message).toBe(`x5c[0] (CN=Leaf) expired at ${new Date(T + DAY).toISOString()}`);
    // Every certificate counts, the anchor too.
    expect(() => assertPathValidAt([path[1]!], T + 10 * DAY + 1, 0)).toThrow(
      /^embedded root \(CN=Root\) expired at /,
    );
  });
});
