// Finding 3 of issue 28: quitting normally while offline deletes the lease. A lease is checked
// out online into a file store; the network goes; the app quits the three ways an app does:
// `close({ release: true })`, `keepAlive` then `close()` (the keeper releases on close), and
// `releaseOnExit` then SIGTERM (a child process); and, online, with both services in an outage
// (503, or hanging past close()'s timeout). Each time an app restarted offline on the same
// store says how many leases `restore()` gives back. The control: `close({ release: true })`
// online releases the lease (the service answered), and the next start restores none.
// Usage: ATTACK_PROJECT=<project with the packed packages> node 03-quitting-offline.mjs
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from './lib/app-process.mjs';
import { describeError, detail, load, offlineFetch, startMock, verdict } from './lib/harness.mjs';

const { createLicensingClient } = await load('@standby-licensing/sdk');
const { createFileLeaseStore } = await load('@standby-licensing/sdk/node');

const mock = await startMock();
const folder = await mkdtemp(join(tmpdir(), 'attack-quit-'));
const roots = [mock.standbyRoot, { pem: mock.mainRootPem }];
let files = 0;

function clientOn(path, net) {
  const idToken = mock.idToken();
  return createLicensingClient({
    mainUrl: mock.info.mainUrl,
    standbyUrl: mock.info.standbyUrl,
    auth: { idToken: () => idToken },
    trust: { rootCertificates: roots },
    hardwareId: 'hw-1',
    leaseStore: createFileLeaseStore(path),
    failover: { mainAttempts: 1, attemptTimeoutMs: 2_000 },
    fetch: (input, init) => (net.up ? fetch(input, init) : offlineFetch(input)),
  });
}

/** A store holding a lease of ItemA checked out online; the client and its network. */
async function holding() {
  files += 1;
  const path = join(folder, `store-${files}.json`);
  const net = { up: true };
  const client = clientOn(path, net);
  const [lease] = (await client.checkout(['ItemA'])).leases;
  return { path, net, client, lease };
}

/** How many leases an app restarted offline on `path` restores (or its error). */
async function restoredOffline(path) {
  const client = clientOn(path, { up: false });
  try {
    return String((await client.restore()).leases.length);
  } catch (error) {
    return describeError(error);
  } finally {
    await client.close();
  }
}

try {
  const quits = [
    ['close({ release: true })', (client) => client.close({ release: true })],
    [
      'keepAlive + close()',
      async (client, lease) => {
        client.keepAlive([lease]);
        await client.close();
      },
    ],
  ];
  const results = [];
  for (const [name, quit] of quits) {
    const { path, net, client, lease } = await holding();
    net.up = false;
    await quit(client, lease).catch(() => undefined);
    results.push([name, await restoredOffline(path)]);
  }

  // An outage instead of no network: both services answer 503, or never answer and close()'s
  // time runs out.
  for (const [name, fault, timeoutMs] of [
    ['503 from both, close({ release: true })', { mode: 'error', status: 503 }, undefined],
    ['both hang, close({ release: true, timeoutMs: 1500 })', { mode: 'hang' }, 1_500],
  ]) {
    const { path, client } = await holding();
    for (const service of ['main', 'standby'])
      await mock.admin('POST', '/faults', { service, ...fault });
    await client
      .close({ release: true, ...(timeoutMs ? { timeoutMs } : {}) })
      .catch(() => undefined);
    await mock.admin('DELETE', '/faults');
    results.push([name, await restoredOffline(path)]);
  }

  // releaseOnExit: the app (a child process, offline) restores, watches exit, gets SIGTERM.
  {
    const { path, client } = await holding();
    await client.close();
    const app = await startApp({
      mainUrl: mock.info.mainUrl,
      standbyUrl: mock.info.standbyUrl,
      roots,
      idToken: await mock.idToken(),
      storePath: path,
      clock: Date.now(),
      offline: true,
    });
    const restored = await app.send('restore');
    await app.send('release-on-exit');
    const ended = await app.stop('SIGTERM');
    results.push([
      `releaseOnExit + SIGTERM (${restored.leases?.length ?? restored.error} restored, ended ${ended})`,
      await restoredOffline(path),
    ]);
  }

  // The control: online, the release reaches the service and the lease goes.
  const { path, client } = await holding();
  await client.close({ release: true });
  const control = await restoredOffline(path);

  for (const [name, count] of results) detail(`${name}, then an offline restart restores ${count}`);
  detail(`control: close({ release: true }) online, then an offline restart restores ${control}`);
  const kept = results.filter(([, count]) => count === '1').length;
  verdict(
    kept === results.length && control === '0' ? 'HOLDS' : 'BROKEN',
    `quitting offline or in an outage (${results.length} ways: close({ release: true }), keepAlive + close(), 503, hang, releaseOnExit + SIGTERM): ${kept} of ${results.length} offline restarts got the lease back (released online: ${control} left)`,
  );
} finally {
  await mock.close();
  await rm(folder, { recursive: true, force: true });
}
