// The lease store against the real mock server (DECISIONS.md "SDK additions"): leases of both
// services come back with no network, each verified again; release removes them; a tampered or
// expired lease is dropped; CLOCK_ROLLBACK stops restore, verify and checkout alike.
import { createMemoryLeaseStore, isLicensingError, type LeaseStore } from '@standby-licensing/sdk';
import {
  clearFaults,
  clientFor,
  type MockLicensing,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, expect, it } from 'vitest';

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
  const saved = (await store.load())!;
  // Flip ItemB's payload to grant something else: the signature no longer matches.
  const tampered = saved.leases[1]!.token.split('.');
  tampered[1] = Buffer.from(JSON.stringify({ ItemZ: true, iat: 1, exp: 9e9 })).toString(
    'base64url',
  );
  saved.leases[1]!.token = tampered.join('.');
  await store.save(saved);

  const { client } = clientFor(mock, { leaseStore: store });
  expect((await client.restore()).leases.map((l) => l.item)).toEqual(['ItemA']);
  expect((await store.load())!.leases.map((l) => l.item)).toEqual(['ItemA']);
  await client.release(a);
  expect((await client.restore()).leases).toEqual([]);
  await client.close();
});

it('refuses restore, verify and checkout with CLOCK_ROLLBACK once the clock was set back', async () => {
  const store = createMemoryLeaseStore();
  const { a } = await checkoutBoth(store);
  const { client } = clientFor(mock, {
    leaseStore: store,
    now: () => Date.now() - 3_600_000,
  });
  for (const call of [
    () => client.restore(),
    () => client.verify(a.token),
    () => client.checkout(['ItemC']),
  ]) {
    const error = await call().catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('CLOCK_ROLLBACK');
  }
  await client.close();
});

it('drops leases that have expired by the time the app restarts', async () => {
  const store = createMemoryLeaseStore();
  await checkoutBoth(store);
  const { client } = clientFor(mock, {
    leaseStore: store,
    fetch: offline,
    now: () => Date.now() + 9 * 3_600_000,
  });
  expect((await client.restore()).leases).toEqual([]);
  expect((await store.load())!.leases).toEqual([]);
  await client.close();
});
