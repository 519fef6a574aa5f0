// A release that reached no service loses nothing (DECISIONS.md "Trust while the app runs
// (fourth wave)"): a lease leaves the store when a service answered its release, or when it
// expired on the trusted time. A release that reached neither service (offline, outage) leaves
// the lease in the store and the next restore() returns it, so `close({ release: true })`, a
// keeper's release on close and `releaseOnExit` while offline never cost the user the lease.
// Finding 3 of issue 28: a paying user on a plane who closed and reopened the app was locked out.
// Rules: sdk/src/client/release.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LicensingClient } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { startApp } from '@test/helpers/app-process.js';
import { offline } from '@test/helpers/lying-network.js';
import {
  clientFor,
  type MockLicensing,
  mintIdToken,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { readStoreFile } from '@test/helpers/store-documents.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
let folder: string;
let files = 0;
beforeAll(async () => {
  mock = await startMockLicensing();
  folder = await mkdtemp(join(tmpdir(), 'trust-quit-'));
});
afterAll(async () => {
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

/** A client on `path` whose network can be cut (`net.up = false`). */
function clientOn(path: string) {
  const net = { up: true };
  const client = clientFor(mock, {
    leaseStore: createFileLeaseStore(path),
    failover: { mainAttempts: 1 },
    fetch: (input, init) => (net.up ? fetch(input, init) : offline(input, init)),
  }).client;
  return { client, net };
}

/** Checks ItemA out online into a new store; returns the store's path, the lease, the client. */
async function holding() {
  files += 1;
  const path = join(folder, `store-${files}.json`);
  const { client, net } = clientOn(path);
  const [lease] = (await client.checkout(['ItemA'])).leases;
  return { path, lease: lease!, client, net };
}

/** A restarted app, offline, on `path`: what restore() returns. */
async function restoredOffline(path: string): Promise<string[]> {
  const restarted = clientFor(mock, { leaseStore: createFileLeaseStore(path), fetch: offline });
  const { leases } = await restarted.client.restore();
  await restarted.client.close();
  return leases.map((lease) => lease.leaseId);
}

describe('quitting while offline keeps the lease for the next offline start', () => {
  it.each<[string, (client: LicensingClient, lease: never) => Promise<unknown>]>([
    ['close({ release: true })', (client) => client.close({ release: true })],
    [
      'keepAlive, then close() (the keeper releases on close)',
      async (client, lease) => {
        client.keepAlive([lease]);
        await client.close();
      },
    ],
    [
      'release(lease) that fails, then close()',
      async (client, lease) => {
        await client.release(lease).catch(() => undefined);
        await client.close();
      },
    ],
  ])('%s', async (_name, quit) => {
    const { path, lease, client, net } = await holding();
    net.up = false;
    await quit(client, lease as never);
    expect(await restoredOffline(path)).toEqual([lease.leaseId]);
  });

  it('releaseOnExit: SIGTERM while offline, then an offline restart restores the lease', async () => {
    const { path, lease, client } = await holding();
    await client.close();
    const app = await startApp({
      mainUrl: mock.server.info.mainUrl,
      standbyUrl: mock.server.info.standbyUrl,
      roots: [mock.standbyRoot, { pem: mock.mainRootPem }],
      idToken: await mintIdToken(mock.server),
      storePath: path,
      clockOffsetMs: 0,
      offline: true,
    });
    expect(await app.send('restore')).toEqual({ leases: [lease.leaseId] });
    await app.send('release-on-exit');
    expect(await app.stop('SIGTERM')).toBe('SIGTERM');
    expect(await restoredOffline(path)).toEqual([lease.leaseId]);
  }, 30_000);
});

describe('a release a service answered removes the lease (the control)', () => {
  it('close({ release: true }) online: the next start restores nothing', async () => {
    const { path, client } = await holding();
    await client.close({ release: true });
    expect(await restoredOffline(path)).toEqual([]);
    expect((await readStoreFile(path)).leases).toEqual([]);
  });
});
