// Finding 8 of issue 28: `Service-SigningKeyId` from main's root. The app lists its roots main
// first, each with a `keyId` (main's key id, then the standby key's); main is down, so the call
// fails over to the standby, in front of which a recording server notes the header it gets. The
// standby knows no key of main's id: before issue 28 it answered `unknown_signing_key` and the
// failover ended in SERVICE_UNAVAILABLE. Then the same roots naming their service (`service`,
// new with issue 28; an older SDK refuses the option: said so), and roots naming the wrong
// service (main's root for the standby): its lease must be refused.
// Usage: ATTACK_PROJECT=<project with the packed packages> node 08-signing-key-id.mjs
import { closedPort, describeError, detail, load, startMock, verdict } from './lib/harness.mjs';
import { startLyingServer } from './lib/lying-server.mjs';

const { createLicensingClient } = await load('@standby-licensing/sdk');

const mock = await startMock();
const sent = [];
const recorder = await startLyingServer(mock.origin, async ({ path, headers }) => {
  if (path.startsWith('/standby/authz/')) sent.push(headers['service-signingkeyid'] ?? 'none');
  return undefined;
});
const deadMain = `http://127.0.0.1:${await closedPort()}/main`;
const idToken = await mock.idToken();

/** A checkout (and a renewal) with `roots`, main at `mainUrl`; its outcome and the headers sent. */
async function checkoutWith(roots, mainUrl = deadMain) {
  sent.length = 0;
  let client;
  try {
    client = createLicensingClient({
      mainUrl,
      standbyUrl: recorder.url(mock.info.standbyUrl),
      auth: { idToken: () => idToken },
      trust: { rootCertificates: roots },
      hardwareId: 'hw-1',
      failover: { mainAttempts: 1, attemptTimeoutMs: 3_000, retryAfterMaxMs: 10 },
    });
  } catch (error) {
    return { created: false, outcome: `${describeError(error)} at creation` };
  }
  try {
    const [lease] = (await client.checkout(['ItemA'])).leases;
    const { kid } = JSON.parse(Buffer.from(lease.token.split('.')[0], 'base64url').toString());
    await client.renew(lease);
    const signer = kid === mock.standbyRoot.keyId ? "the standby root's key" : `kid ${kid}`;
    return { outcome: `served by ${lease.servedBy}, signed with ${signer}`, lease };
  } catch (error) {
    return { outcome: describeError(error) };
  } finally {
    await client.close();
  }
}

const label = (id) =>
  id === mock.mainKid ? "main's kid" : id === mock.standbyRoot.keyId ? "standby's kid" : id;

try {
  const mainFirst = [
    { pem: mock.mainRootPem, keyId: mock.mainKid },
    { pem: mock.standbyRoot.pem, keyId: mock.standbyRoot.keyId },
  ];
  const plain = await checkoutWith(mainFirst);
  detail(
    `roots main first, each with a keyId, no service named; main down: ${plain.outcome}; Service-SigningKeyId sent: ${sent.map(label).join(', ') || 'none'}`,
  );
  const plainOk = plain.lease?.servedBy === 'standby';

  const named = await checkoutWith([
    { ...mainFirst[0], service: 'main' },
    { ...mainFirst[1], service: 'standby' },
  ]);
  const namedSent = [...sent];
  let namedOk = true;
  if (named.created === false) {
    detail(
      `[N/A] roots naming their service: ${named.outcome} (this SDK has no \`service\` on roots)`,
    );
  } else {
    namedOk = named.lease?.servedBy === 'standby' && !namedSent.includes(mock.mainKid);
    detail(
      `roots naming their service; main down: ${named.outcome}; Service-SigningKeyId sent: ${namedSent.map(label).join(', ') || 'none'}`,
    );
    const swapped = await checkoutWith(
      [
        { pem: mock.mainRootPem, service: 'standby' },
        { pem: mock.standbyRoot.pem, service: 'main' },
      ],
      mock.info.mainUrl,
    );
    namedOk &&= !swapped.lease;
    detail(`main's root marked for the standby and the reverse, main up: ${swapped.outcome}`);
  }
  verdict(
    plainOk && namedOk ? 'HOLDS' : 'BROKEN',
    `roots listed main first, each with a keyId, main down: ${plain.outcome}${named.created === false ? '; roots cannot name their service (INVALID_ARGUMENT)' : `; roots naming their service: main's kid sent ${namedSent.includes(mock.mainKid) ? 'yes' : 'never'}`}`,
  );
} finally {
  await recorder.close();
  await mock.close();
}
