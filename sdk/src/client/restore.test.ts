// restore(): the leases a store keeps, verified again with no network call. Against a real mock
// server, with file stores and killed processes: test/licensing/restore.test.ts and test/trust/.

import { describe, expect, it } from 'vitest';
import { authzHandler, makeClient, seededStore } from '../../test/helpers/licensing-test-setup.js';
import { useMswServer } from '../../test/helpers/msw-server.js';
import { rejection } from '../../test/helpers/rejection.js';

const server = useMswServer();

/** A store holding one ItemA lease from main, checked out by device H1. */
async function storeWithLease() {
  const main = authzHandler('main', ['ok']);
  server.use(main.handler);
  const leaseStore = seededStore();
  const { client } = makeClient({ leaseStore });
  const [lease] = (await client.checkout(['ItemA'])).leases;
  await client.close({ release: false });
  server.resetHandlers();
  return { leaseStore, lease: lease! };
}

describe('restore', () => {
  it('gives back the stored lease with no request (every request would fail)', async () => {
    const { leaseStore, lease } = await storeWithLease();
    const { client } = makeClient({ leaseStore });
    const { leases } = await client.restore();
    expect(leases.map((l) => [l.item, l.leaseId, l.servedBy])).toEqual([
      ['ItemA', lease.leaseId, 'main'],
    ]);
    expect(client.has('ItemA')).toBe(true);
    await client.close({ release: false });
  });

  it('restores no lease of another device: a client with another hardwareId gets none', async () => {
    const { leaseStore } = await storeWithLease();
    const { client } = makeClient({ leaseStore, hardwareId: 'H2' });
    expect((await client.restore()).leases).toEqual([]);
    expect(client.has('ItemA')).toBe(false);
    await client.close({ release: false });
  });

  it('refuses an edited store (its time mark moved back) with LEASE_STORE_INVALID', async () => {
    const { leaseStore } = await storeWithLease();
    const text = (await leaseStore.load())!;
    await leaseStore.save(text.replace(/"timeMark":\d+/, '"timeMark":1'));
    const { client } = makeClient({ leaseStore });
    expect(await rejection(client.restore())).toMatchObject({ code: 'LEASE_STORE_INVALID' });
    await client.close({ release: false });
  });
});
