// The lease store against the real mock server (DECISIONS.md "SDK additions", "Lease trust"):
// leases of both services come back with no network, each verified again; release removes them;
// a tampered lease is dropped; a clock set back stops restore and verify, while an online
// checkout judges on the services' clock. The adversarial cases live in test/trust/.
import { createMemoryLeaseStore, isLicensingError, type LeaseStore } from '@standby-licensing/sdk';
import {
  clearFaults,
  clientFor,
  type MockLicensing,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { readStore, writeStore } from '@test/helpers/store-documents.js';
import { afterAll, beforeAll, expect, it } from 'vitest';

const HOUR = 3_600_000;
let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing();
});
afterAll(() => mock.close());

const offline: typeof fetch = async (input) => {
  throw new Error(`no network during restore: ${String(input)}`);
};

/** Checks ItemA out on main and ItemB on the standby (main broken) into `store`. */
async function checkoutBoth(store: LeaseStore) {
  const { client } = clientFor(mock, { leaseStore: store, failover: { mainAttempts: 1 } });
  const a = (await client.checkout(['ItemA'])).leases[0]!;
  await setMainFault(mock.server, { mode: 'error', status: 503 });
  const b = (await client.checkout(['ItemB'])).leases[0]!;
  await clearFaults(mock.server);
  await client.close();
  return { a, b };
}

it('restores leases of both services with no network, each verified again', async () => {
  const store = createMemoryLeaseStore();
  const { a, b } = await checkoutBoth(store);
  expect([a.servedBy, b.servedBy]).toEqual(['main', 'standby']);

  const { client } = clientFor(mock, { leaseStore: store, fetch: offline });
  const { leases } = await client.restore();
  expect(leases.map((l) => [l.item, l.leaseId, l.servedBy])).toEqual([
    ['ItemA', a.leaseId, 'main'],
    ['ItemB', b.leaseId, 'standby'],
  ]);
  expect(leases[1]!.claims).toMatchObject({ ItemB: true, hw: 'hw-1' });
  await client.close();
});

it('drops a tampered lease and forgets released ones', async () => {
  const store = createMemoryLeaseStore();
  const { a } = await checkoutBoth(store);
  const saved = await readStore(store);
  // Flip ItemB's payload to grant something else: the signature no longer matches.
  const tampered = saved.leases[1]!.token.split('.');
  tampered[1] = Buffer.from(JSON.stringify({ ItemZ: true, iat: 1, exp: 9e9 })).toString(
    'base64url',
  );
  saved.leases[1]!.token = tampered.join('.');
  await writeStore(store, saved);

  const { client } = clientFor(mock, { leaseStore: store });
  expect((await client.restore()).leases.map((l) => l.item)).toEqual(['ItemA']);
  expect((await readStore(store)).leases.map((l) => l.item)).toEqual(['ItemA']);
  await client.release(a);
  expect((await client.restore()).leases).toEqual([]);
  await client.close();
});

it('refuses restore and verify with CLOCK_ROLLBACK once the clock was set back, never checkout', async () => {
  const store = createMemoryLeaseStore();
  const { a } = await checkoutBoth(store);
  // The leases were accepted at 7 h ahead (the mark rises there), then the clock went back.
  let skewMs = 7 * HOUR;
  const { client } = clientFor(mock, {
    leaseStore: store,
    fetch: offline,
    now: () => Date.now() + skewMs,
  });
  expect((await client.restore()).leases).toHaveLength(2);
  skewMs = HOUR;
  for (const call of [() => client.restore(), () => client.verify(a.token)]) {
    const error = await call().catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('CLOCK_ROLLBACK');
  }
  await client.close();
  // Online, the services' clock is the truth: the checkout works and re-anchors the mark.
  const { client: online } = clientFor(mock, { leaseStore: store, now: () => Date.now() + HOUR });
  expect((await online.checkout(['ItemC'])).leases[0]!.item).toBe('ItemC');
  expect((await online.restore()).leases.map((l) => l.item)).toEqual(['ItemA', 'ItemB', 'ItemC']);
  await online.close();
});

it('does not give leases back on a clock past their expiry, and deletes nothing for it', async () => {
  const store = createMemoryLeaseStore();
  await checkoutBoth(store);
  const ahead = clientFor(mock, {
    leaseStore: store,
    fetch: offline,
    now: () => Date.now() + 9 * HOUR,
  });
  expect((await ahead.client.restore()).leases).toEqual([]);
  expect((await readStore(store)).leases).toHaveLength(2);
  await ahead.client.close();
  const back = clientFor(mock, { leaseStore: store, fetch: offline });
  expect((await back.client.restore()).leases).toHaveLength(2);
  await back.client.close();
});
