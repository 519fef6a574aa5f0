// Hardware binding (DECISIONS.md "Lease trust (third wave)"): a client with a `hardwareId` holds
// only leases whose `hw` claim is that id. A lease store copied to another machine gives that
// machine nothing (and loses nothing: the lease is not the other machine's to delete), and a
// network that hands it another device's lease is refused. Rule: sdk/src/lease/verify-lease.ts
// (checkLeaseClaims, reason `hardware`).
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rejection } from '@sdk-test/helpers/rejection.js';
import { createLicensingClient } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { createLyingNetwork, fetchReal, offline, rewrite } from '@test/helpers/lying-network.js';
import {
  clearFaults,
  clientFor,
  type MockLicensing,
  mintIdToken,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { readStoreFile } from '@test/helpers/store-documents.js';
import { http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
let folder: string;
const network = createLyingNetwork();
beforeAll(async () => {
  mock = await startMockLicensing();
  folder = await mkdtemp(join(tmpdir(), 'trust-hw-'));
  network.listen();
});
afterEach(async () => {
  network.resetHandlers();
  await clearFaults(mock.server);
});
afterAll(async () => {
  network.close();
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

/** pc-1 checks ItemA out on main and ItemB on the standby into its own lease store file. */
async function leasesOfPc1(name: string) {
  const path = join(folder, `${name}-pc-1.json`);
  const { client } = clientFor(mock, {
    leaseStore: createFileLeaseStore(path),
    hardwareId: 'pc-1',
    failover: { mainAttempts: 1 },
  });
  const a = (await client.checkout(['ItemA'])).leases[0]!;
  await setMainFault(mock.server, { mode: 'error', status: 503 });
  const b = (await client.checkout(['ItemB'])).leases[0]!;
  await clearFaults(mock.server);
  await client.close();
  expect([a.claims.hw, b.claims.hw, a.servedBy, b.servedBy]).toEqual([
    'pc-1',
    'pc-1',
    'main',
    'standby',
  ]);
  return { path, leases: [a, b] };
}

describe("pc-1's lease store copied to pc-2", () => {
  it('restore() on pc-2 returns none of them and keeps them in the store', async () => {
    const pc1 = await leasesOfPc1('copied');
    const path = join(folder, 'copied-pc-2.json');
    await copyFile(pc1.path, path);

    const { client } = clientFor(mock, {
      leaseStore: createFileLeaseStore(path),
      hardwareId: 'pc-2',
      fetch: offline,
    });
    expect((await client.restore()).leases).toEqual([]);
    expect((await readStoreFile(path)).leases.map((entry) => entry.token)).toEqual(
      pc1.leases.map((lease) => lease.token),
    );
    await client.close();

    // The very same file still serves pc-1 (nothing was lost by pc-2's look at it).
    const { client: pc1Again } = clientFor(mock, {
      leaseStore: createFileLeaseStore(path),
      hardwareId: 'pc-1',
      fetch: offline,
    });
    expect((await pc1Again.restore()).leases.map((lease) => lease.leaseId)).toEqual(
      pc1.leases.map((lease) => lease.leaseId),
    );
    await pc1Again.close();
  });

  it('verify() on pc-2 refuses each with TOKEN_INVALID hardware', async () => {
    const pc1 = await leasesOfPc1('verify');
    const path = join(folder, 'verify-pc-2.json');
    await copyFile(pc1.path, path);
    const { client } = clientFor(mock, {
      leaseStore: createFileLeaseStore(path),
      hardwareId: 'pc-2',
    });
    for (const lease of pc1.leases) {
      for (const options of [undefined, { item: lease.item }]) {
        expect(await rejection(client.verify(lease.token, options))).toMatchObject({
          code: 'TOKEN_INVALID',
          reason: 'hardware',
        });
      }
    }
    await client.close();
  });

  it('a client without a hardwareId is bound to nothing and accepts them (the control)', async () => {
    const pc1 = await leasesOfPc1('unbound');
    // clientFor always sets a hardwareId: this client is built without one.
    const client = createLicensingClient({
      mainUrl: mock.server.info.mainUrl,
      standbyUrl: mock.server.info.standbyUrl,
      auth: { idToken: () => mintIdToken(mock.server) },
      trust: { rootCertificates: [mock.standbyRoot, { pem: mock.mainRootPem }] },
      leaseStore: createFileLeaseStore(pc1.path),
      fetch: offline,
    });
    expect((await client.restore()).leases).toHaveLength(2);
    await client.close();
  });
});

describe("a network that hands pc-2 pc-1's lease", () => {
  it.each(['main', 'standby'] as const)(
    "pc-2's checkout answered (by %s) with a lease issued to pc-1 is TOKEN_INVALID hardware",
    async (service) => {
      if (service === 'standby') await setMainFault(mock.server, { mode: 'error', status: 503 });
      const base = service === 'main' ? mock.server.info.mainUrl : mock.server.info.standbyUrl;
      let lied = 0;
      network.use(
        http.get(`${base}/authz/.jwt`, async ({ request }) => {
          // The same request, asked for pc-1: a genuine lease, bound to another device.
          const url = request.url.replace('hw=pc-2', 'hw=pc-1');
          if (url !== request.url) lied += 1;
          const real = await fetchReal(request, url);
          return rewrite(real, await real.text());
        }),
      );
      const path = join(folder, `lied-${service}.json`);
      const { client } = clientFor(mock, {
        leaseStore: createFileLeaseStore(path),
        hardwareId: 'pc-2',
        failover: { mainAttempts: 1 },
      });
      expect(await rejection(client.checkout(['ItemA']))).toMatchObject({
        code: 'TOKEN_INVALID',
        reason: 'hardware',
      });
      expect(lied).toBe(1);
      await client.close();
    },
  );
});
