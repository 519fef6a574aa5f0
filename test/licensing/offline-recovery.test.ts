// The recovery after an offline spell (issue 32, the newcomer's findings): once the services (and
// the app's sign-in) answer again, the keeper's next renewal goes through, without waiting out the
// ID-token provider's retry cooldown (`auth.providerRetryMs`, 10 minutes here, so that nothing
// would renew within the test without the rule). The provider is asked at once when there is no
// token to fall back on (an app restarted offline) and when main refused the last good one (a
// service answers again). Rules: sdk/src/auth/id-token-source.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { offline } from '@test/helpers/lying-network.js';
import {
  clientFor,
  type MockLicensing,
  mintIdToken,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
let folder: string;
beforeAll(async () => {
  mock = await startMockLicensing();
  folder = await mkdtemp(join(tmpdir(), 'offline-recovery-'));
});
afterAll(async () => {
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('an app restarted offline', () => {
  it('renews at its next try once the sign-in and the services answer, not after the cooldown', async () => {
    const path = join(folder, 'store.json');
    const first = clientFor(mock, { leaseStore: createFileLeaseStore(path) }).client;
    await first.checkout(['ItemA']);
    await first.close();

    // Restarted with no network: no ID token in memory, the sign-in unreachable.
    const net = { up: false };
    let providerFailures = 0;
    const idToken = () => {
      if (net.up) return mintIdToken(mock.server);
      providerFailures += 1;
      throw new Error('sign-in unreachable');
    };
    const renewed: string[] = [];
    const { client } = clientFor(mock, {
      leaseStore: createFileLeaseStore(path),
      auth: { idToken, providerRetryMs: 600_000 },
      fetch: (input, init) => (net.up ? fetch(input, init) : offline(input, init)),
      failover: { mainAttempts: 1 },
      on: { leaseRenewed: ({ lease }) => renewed.push(lease.servedBy) },
    });
    const { leases } = await client.restore();
    expect(leases).toHaveLength(1);
    client.keepAlive(leases, { maxRefreshIntervalMs: 200, retryBaseMs: 100, retryMaxMs: 400 });
    await until(() => providerFailures >= 2, 15_000);
    expect(client.status().lastError).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      reason: 'id-token-provider-failed',
    });

    // The network is back: a renewal goes through at the keeper's next try.
    net.up = true;
    await until(() => renewed.length > 0, 15_000);
    expect(renewed[0]).toBe('main');
    await client.close();
  }, 40_000);
});
