// Certificates are for signing leases (DECISIONS.md "Trust while the app runs (fourth wave)"):
// a certificate in a lease key's chain with an unknown critical extension is refused (RFC 5280
// 4.2), and a signing certificate whose extendedKeyUsage is present and names only other purposes
// (TLS server or client, code signing, e-mail, time stamping, OCSP) is refused: such a key was
// issued for something else. Finding 6 of issue 28: a TLS server certificate (EKU serverAuth) and
// one with an unknown critical extension both signed an accepted lease. The standby's answers are
// replaced here by a network that lies: its JWK set publishes the test key, its authz answer is a
// lease that key signed. Rules: sdk/src/lease/certificate-chain.ts, sdk/src/internal/certificate.ts.

import { rejection } from '@sdk-test/helpers/rejection.js';
import {
  createTestCa,
  createTestSigningKey,
  type TestCa,
  type TestSigningKey,
} from '@sdk-test/helpers/test-pki.js';
import { x509 } from '@sdk-test/helpers/x509.js';
import { createLyingNetwork } from '@test/helpers/lying-network.js';
import {
  clientFor,
  closedPort,
  type MockLicensing,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const EMAIL = '1.3.6.1.5.5.7.3.4';
const TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
const OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';
const ANY_PURPOSE = '2.5.29.37.0';
/** A purpose a vendor might define for its lease-signing keys. */
const VENDOR_PURPOSE = '1.3.6.1.4.1.55555.1.1';

let mock: MockLicensing;
let root: TestCa;
let deadMain: string;
const network = createLyingNetwork();
beforeAll(async () => {
  mock = await startMockLicensing();
  root = await createTestCa({ name: 'Purpose Test Root' });
  deadMain = `http://127.0.0.1:${await closedPort()}/main`;
  network.listen();
});
afterEach(() => network.resetHandlers());
afterAll(async () => {
  network.close();
  await mock.close();
});

/** An unknown extension (a private OID), critical or not. */
function unknownExtension(critical: boolean): x509.Extension {
  return new x509.Extension('1.3.6.1.4.1.55555.9.9', critical, new Uint8Array([0x05, 0x00]));
}

/** The standby publishes `key` and answers every checkout with a lease `key` signed. */
function standbySignsWith(key: TestSigningKey) {
  const base = mock.server.info.standbyUrl;
  network.use(
    http.get(`${base}/.well-known/jwks.json`, () => HttpResponse.json({ keys: [key.jwk] })),
    http.get(`${base}/authz/.jwt`, async () => {
      const token = await key.sign({
        ItemA: true,
        jti: `lease-${key.kid}`,
        lic: 'license-1',
        hw: 'hw-1',
        iss: base,
      });
      return new HttpResponse(token, { headers: { 'content-type': 'application/jwt' } });
    }),
  );
}

/** Checks ItemA out on the lying standby (main down), the test root embedded. */
async function checkoutWith(key: TestSigningKey) {
  standbySignsWith(key);
  const { client } = clientFor(mock, {
    mainUrl: deadMain,
    failover: { mainAttempts: 1 },
    trust: { rootCertificates: [{ pem: root.pem }] },
  });
  try {
    return await client.checkout(['ItemA']);
  } finally {
    await client.close();
  }
}

describe('a signing certificate issued for another purpose', () => {
  it.each([
    ['a TLS server certificate', [SERVER_AUTH]],
    ['a TLS client and server certificate', [SERVER_AUTH, CLIENT_AUTH]],
    ['an e-mail certificate', [EMAIL]],
    ['a time stamping certificate', [TIME_STAMPING]],
    ['an OCSP responder', [OCSP_SIGNING]],
  ])('%s signs no lease: TOKEN_INVALID chain, naming extendedKeyUsage', async (_n, usages) => {
    const key = await createTestSigningKey(root, {
      extensions: [new x509.ExtendedKeyUsageExtension(usages)],
    });
    const error = await rejection(checkoutWith(key));
    expect(error).toMatchObject({ code: 'TOKEN_INVALID', reason: 'chain' });
    expect((error as Error).message).toMatch(/extendedKeyUsage/);
  });

  it.each([
    ['any purpose', [ANY_PURPOSE]],
    ["a vendor's own lease-signing purpose", [VENDOR_PURPOSE]],
    ['a TLS server certificate that also names a vendor purpose', [SERVER_AUTH, VENDOR_PURPOSE]],
  ])('%s may sign leases (the control)', async (_n, usages) => {
    const key = await createTestSigningKey(root, {
      extensions: [new x509.ExtendedKeyUsageExtension(usages)],
    });
    expect((await checkoutWith(key)).leases.map((l) => l.servedBy)).toEqual(['standby']);
  });
});

describe('an unknown critical extension', () => {
  it('in the signing certificate: TOKEN_INVALID chain, naming the extension', async () => {
    const key = await createTestSigningKey(root, { extensions: [unknownExtension(true)] });
    const error = await rejection(checkoutWith(key));
    expect(error).toMatchObject({ code: 'TOKEN_INVALID', reason: 'chain' });
    expect((error as Error).message).toMatch(/critical extension 1\.3\.6\.1\.4\.1\.55555\.9\.9/);
  });

  it('in an intermediate CA: TOKEN_INVALID chain', async () => {
    const intermediate = await createTestCa({
      issuer: root,
      extensions: [unknownExtension(true)],
    });
    const key = await createTestSigningKey(intermediate);
    expect(await rejection(checkoutWith(key))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'chain',
    });
  });

  it('the same extension, not critical, is ignored (the control)', async () => {
    const key = await createTestSigningKey(root, { extensions: [unknownExtension(false)] });
    expect((await checkoutWith(key)).leases).toHaveLength(1);
  });
});
