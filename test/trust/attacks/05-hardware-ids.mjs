// Finding 5 of issue 28: a `hardwareId` with `;` never gets a usable lease. The services split
// `hw=<id>;name=<label>` at `;`, so the lease comes back bound to the cut id and is refused as
// another device's, and nothing says why. Tried: `hardwareId` with a `;` and with a line feed,
// `hardwareName` with a `;`, `machineId()` with STANDBY_LICENSING_HARDWARE_ID holding a `;`. The
// promise: such an id is refused when the client is made (INVALID_ARGUMENT naming the option and
// the character), never a client whose every lease is refused. The control: an id with spaces,
// `=`, `&` and non-ASCII letters gets a lease bound to it whole.
// Usage: ATTACK_PROJECT=<project with the packed packages> node 05-hardware-ids.mjs
import { describeError, detail, load, startMock, verdict } from './lib/harness.mjs';

const { createLicensingClient } = await load('@standby-licensing/sdk');
const { machineId } = await load('@standby-licensing/sdk/node');

const mock = await startMock();
const idToken = await mock.idToken();

/** What became of a client made with `extra`: refused at creation, or its checkout's outcome. */
async function tryIds(extra) {
  let client;
  try {
    client = createLicensingClient({
      mainUrl: mock.info.mainUrl,
      standbyUrl: mock.info.standbyUrl,
      auth: { idToken: () => idToken },
      trust: { rootCertificates: [mock.standbyRoot, { pem: mock.mainRootPem }] },
      failover: { mainAttempts: 1, attemptTimeoutMs: 3_000 },
      ...extra,
    });
  } catch (error) {
    return {
      atCreation: true,
      text: `refused at creation: ${describeError(error)}: ${error.message.split('\n')[0]}`,
    };
  }
  try {
    const [lease] = (await client.checkout(['ItemA'])).leases;
    const bound = JSON.stringify(lease.claims.hw);
    const named = lease.claims.hwName;
    const name = named === undefined ? '' : `, hwName ${JSON.stringify(named)}`;
    const cut =
      lease.claims.hw !== extra.hardwareId ||
      (extra.hardwareName !== undefined && named !== extra.hardwareName);
    return {
      usable: client.has('ItemA'),
      cut,
      text: `client made; checkout gave a lease bound to ${bound}${name}`,
    };
  } catch (error) {
    const kind = typeof error?.code === 'string' ? '' : ` (a ${error?.name}, no LicensingError)`;
    return { text: `client made; checkout ${describeError(error)}${kind}` };
  } finally {
    await client.close();
  }
}

try {
  const attacks = [
    ["hardwareId 'pc-1;rack-2'", { hardwareId: 'pc-1;rack-2' }],
    ["hardwareId 'pc-1\\nx'", { hardwareId: 'pc-1\nx' }],
    ["hardwareName 'Büro;2'", { hardwareId: 'pc-1', hardwareName: 'Büro;2' }],
  ];
  let refused = 0;
  const made = [];
  for (const [name, extra] of attacks) {
    const outcome = await tryIds(extra);
    if (outcome.atCreation) refused += 1;
    else made.push(outcome);
    detail(`${name}: ${outcome.text}`);
  }

  process.env.STANDBY_LICENSING_HARDWARE_ID = 'image-7;clone';
  const fromEnv = await machineId({ appId: 'com.example.attacks' }).then(
    (id) => ({ id }),
    (error) => ({ error }),
  );
  delete process.env.STANDBY_LICENSING_HARDWARE_ID;
  if (fromEnv.error) {
    refused += 1;
    detail(
      `STANDBY_LICENSING_HARDWARE_ID 'image-7;clone': machineId() ${describeError(fromEnv.error)}: ${fromEnv.error.message.split('\n')[0]}`,
    );
  } else {
    const outcome = await tryIds({ hardwareId: fromEnv.id });
    if (outcome.atCreation) refused += 1;
    else made.push(outcome);
    detail(
      `STANDBY_LICENSING_HARDWARE_ID 'image-7;clone': machineId() gave ${JSON.stringify(fromEnv.id)}; ${outcome.text}`,
    );
  }

  // Beyond the rule: a lone UTF-16 surrogate (no character, so no URL can carry it).
  const surrogate = await tryIds({ hardwareId: 'pc-\ud800' });
  detail(`beyond the rule: hardwareId 'pc-\\ud800' (a lone surrogate): ${surrogate.text}`);

  const control = await tryIds({ hardwareId: 'Büro PC = #2 & spare' });
  detail(`control, hardwareId 'Büro PC = #2 & spare': ${control.text}; has() ${control.usable}`);
  const total = attacks.length + 1;
  verdict(
    refused === total && control.usable ? 'HOLDS' : 'BROKEN',
    `hardware ids with ';' or a line feed (${total} tries): ${refused} refused when the client (or machineId) was made; of ${made.length} clients made, ${made.filter((o) => !o.usable).length} got no usable lease and ${made.filter((o) => o.cut).length} a cut id or name, silently; the control id got a usable lease: ${control.usable === true}`,
  );
} finally {
  await mock.close();
}
