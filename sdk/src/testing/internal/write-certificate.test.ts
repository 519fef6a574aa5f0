import { createPublicKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase64 } from '../../internal/base64.js';
import { KEY_USAGE } from '../../internal/certificate.js';
import { verifyCertificateChain } from '../../lease/certificate-chain.js';
import { parseTrustedRoots } from '../../lease/trusted-roots.js';
import { loadFakePki } from './fake-pki.js';
import { writeCertificate } from './write-certificate.js';

// The fakes' certificates, read by OpenSSL (node:crypto's X509Certificate, a parser independent of
// the SDK's) and by the SDK's own chain check, as an app's client reads them.
describe('writeCertificate', () => {
  it('writes a CA root and a signing leaf that OpenSSL reads and verifies', async () => {
    const { main } = await loadFakePki();
    const [leafDer, rootDer] = main.jwk.x5c.map((entry) => decodeBase64(entry));
    const leaf = new X509Certificate(leafDer!);
    const root = new X509Certificate(rootDer!);
    expect(root.subject).toBe('CN=Fake Main Licensing Root');
    expect(root.issuer).toBe(root.subject);
    expect(root.ca).toBe(true);
    expect(root.verify(root.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.issuer).toBe(root.subject);
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.verify(leaf.publicKey)).toBe(false);
    // The leaf's key is the JWK's.
    const jwk = leaf.publicKey.export({ format: 'jwk' });
    expect({ n: jwk.n, e: jwk.e }).toEqual({ n: main.jwk.n, e: main.jwk.e });
    expect(createPublicKey(main.publicKeyPem).equals(leaf.publicKey)).toBe(true);
    expect(new X509Certificate(main.rootPem).fingerprint256).toBe(root.fingerprint256);
    expect(new Date(root.validFrom).getUTCFullYear()).toBe(2000);
    expect(new Date(root.validTo).getUTCFullYear()).toBe(2100);
  });

  it('passes the SDK’s chain check up to its own root, and only its own', async () => {
    const { main, standby } = await loadFakePki();
    const [mainRoot, standbyRoot] = parseTrustedRoots([
      { pem: main.rootPem },
      { pem: standby.rootPem },
    ]);
    const path = await verifyCertificateChain(main.jwk.x5c, [mainRoot!]);
    expect(path.leaf.subject).toBe('CN=Fake Main Lease Signing fake-main-key');
    expect(path.leaf.keyUsage).toBe(KEY_USAGE.digitalSignature);
    expect(path.leaf.basicConstraints).toEqual({ ca: false });
    expect(mainRoot!.cert.keyUsage).toBe(KEY_USAGE.keyCertSign | KEY_USAGE.cRLSign);
    expect(mainRoot!.cert.basicConstraints).toEqual({ ca: true });
    expect(path.validity.map((entry) => entry.label)).toEqual(['x5c[0]', 'embedded root']);
    await expect(verifyCertificateChain(main.jwk.x5c, [standbyRoot!])).rejects.toThrow(
      /neither an embedded root nor signed by one/,
    );
  });

  it('marks a leaf that must not issue: a certificate it signs fails the chain check', async () => {
    const { standby } = await loadFakePki();
    const keys = (await crypto.subtle.generateKey(
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: 'SHA-256',
      },
      true,
      ['sign', 'verify'],
    )) as CryptoKeyPair;
    const below = await writeCertificate({
      subject: 'Below a leaf',
      issuer: {
        name: 'Fake Standby Lease Signing fake-standby-key',
        privateKey: standby.privateKey,
      },
      keys,
      ca: false,
      notBefore: new Date(Date.UTC(2020, 0, 1)),
      notAfter: new Date(Date.UTC(2030, 0, 1)),
    });
    const [root] = parseTrustedRoots([{ pem: standby.rootPem }]);
    const x5c = [Buffer.from(below).toString('base64'), ...standby.jwk.x5c];
    await expect(verifyCertificateChain(x5c, [root!])).rejects.toThrow(/is not a CA/);
  });
});
