// Finding 6 of issue 28: any certificate under an embedded root could sign leases, whatever it
// was issued for. A test PKI (@peculiar/x509) plays the vendor's root; the app embeds it. A lying
// server in front of the mock's standby (main is down) publishes one key of that PKI as the
// standby's JWK set and re-signs the mock's genuine lease claims with it. The key's certificate:
// a TLS server certificate (EKU serverAuth), an e-mail certificate, one with an unknown critical
// extension, one under an intermediate CA with an unknown critical extension, and an
// intermediate CA's own key. The controls: a
// plain signing certificate, and one whose EKU names a vendor purpose, sign accepted leases.
// Usage: ATTACK_PROJECT=<project with the packed packages> node 06-certificate-purpose.mjs
import { closedPort, describeError, detail, load, startMock, verdict } from './lib/harness.mjs';
import { startLyingServer } from './lib/lying-server.mjs';
import { caAsSigningKey, claimsOf, createCa, createSigningKey, x509 } from './lib/test-pki.mjs';

const { createLicensingClient } = await load('@standby-licensing/sdk');

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const EMAIL = '1.3.6.1.5.5.7.3.4';
const VENDOR_PURPOSE = '1.3.6.1.4.1.55555.1.1';
const unknownCritical = () =>
  new x509.Extension('1.3.6.1.4.1.55555.9.9', true, new Uint8Array([0x05, 0x00]));
const JWS = /[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;

const mock = await startMock();
const root = await createCa({ name: 'Attack Vendor Root' });
let signer;
const liar = await startLyingServer(mock.origin, async ({ path, forward }) => {
  if (!path.startsWith('/standby/')) return undefined;
  if (path.startsWith('/standby/.well-known/jwks.json')) {
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keys: [signer.jwk] }),
    };
  }
  if (!path.startsWith('/standby/authz/')) return undefined;
  const real = await forward();
  const text = real.body.toString('utf8');
  const tokens = text.match(JWS) ?? [];
  let body = text;
  for (const token of tokens) body = body.replace(token, await signer.sign(claimsOf(token)));
  return { ...real, body };
});
const deadMain = `http://127.0.0.1:${await closedPort()}/main`;
const idToken = await mock.idToken();

/** A checkout on the lying standby whose key is `key`: `accepted` or the refusal. */
async function checkoutSignedBy(key) {
  signer = key;
  const client = createLicensingClient({
    mainUrl: deadMain,
    standbyUrl: liar.url(mock.info.standbyUrl),
    auth: { idToken: () => idToken },
    trust: { rootCertificates: [{ pem: root.pem }] },
    hardwareId: 'hw-1',
    failover: { mainAttempts: 1, attemptTimeoutMs: 3_000 },
  });
  try {
    const [lease] = (await client.checkout(['ItemA'])).leases;
    return client.has('ItemA') && lease.servedBy === 'standby' ? 'accepted' : 'not held';
  } catch (error) {
    return describeError(error);
  } finally {
    await client.close();
  }
}

try {
  const attacks = [
    [
      'a TLS server certificate (EKU serverAuth)',
      { extensions: [new x509.ExtendedKeyUsageExtension([SERVER_AUTH])] },
    ],
    [
      'an e-mail certificate (EKU emailProtection)',
      { extensions: [new x509.ExtendedKeyUsageExtension([EMAIL])] },
    ],
    ['a certificate with an unknown critical extension', { extensions: [unknownCritical()] }],
    [
      'a certificate under an intermediate with an unknown critical extension',
      { intermediate: [unknownCritical()] },
    ],
    ["an intermediate CA's own key (keyUsage keyCertSign, cRLSign)", { caItself: true }],
  ];
  let accepted = 0;
  for (const [name, options] of attacks) {
    const issuer = options.intermediate
      ? await createCa({ issuer: root, extensions: options.intermediate })
      : root;
    const key = options.caItself
      ? await caAsSigningKey(await createCa({ issuer: root }))
      : await createSigningKey(issuer, options);
    const outcome = await checkoutSignedBy(key);
    if (outcome === 'accepted') accepted += 1;
    detail(`${name} signed a lease: ${outcome}`);
  }
  const controls = [];
  for (const [name, options] of [
    ['a plain signing certificate', {}],
    ["a vendor's own EKU", { extensions: [new x509.ExtendedKeyUsageExtension([VENDOR_PURPOSE])] }],
  ]) {
    const outcome = await checkoutSignedBy(await createSigningKey(root, options));
    controls.push(outcome);
    detail(`control, ${name} signed a lease: ${outcome}`);
  }
  const controlsOk = controls.every((c) => c === 'accepted');
  // Beyond the rule (an EKU is checked on the signing certificate only): a plain signing
  // certificate under an intermediate CA whose own EKU is serverAuth only (a TLS-issuing CA).
  const tlsCa = await createCa({
    issuer: root,
    extensions: [new x509.ExtendedKeyUsageExtension([SERVER_AUTH])],
  });
  detail(
    `beyond the rule: a plain certificate under an intermediate whose EKU is serverAuth only signed a lease: ${await checkoutSignedBy(await createSigningKey(tlsCa))}`,
  );
  verdict(
    accepted === 0 && controlsOk ? 'HOLDS' : 'BROKEN',
    `certificates under the embedded root issued for other purposes (TLS server, e-mail, unknown critical extension in the leaf or an intermediate, a CA's own key): ${accepted} of ${attacks.length} signed an accepted lease; the controls (plain, vendor EKU) accepted: ${controlsOk}`,
  );
} finally {
  await liar.close();
  await mock.close();
}
