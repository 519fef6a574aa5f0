import { isLicensingError } from '@standby-licensing/sdk';
import {
  clearFaults,
  clientFor,
  closedPort,
  countingFetch,
  type MockLicensing,
  setMainFault,
  setStandbyEnabled,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing();
});
afterEach(async () => {
  await clearFaults(mock.server);
  await setStandbyEnabled(mock.server, true);
});
afterAll(() => mock.close());

type Breakage = 'refused port' | 'hang' | '503 HTML' | 'reset';
const BREAKAGES: Breakage[] = ['refused port', 'hang', '503 HTML', 'reset'];

/** Breaks main the given way; returns the mainUrl the client should use. */
async function breakMain(how: Breakage): Promise<string> {
  switch (how) {
    case 'refused port':
      return `http://127.0.0.1:${await closedPort()}/main`;
    case 'hang':
      await setMainFault(mock.server, { mode: 'hang' });
      break;
    case '503 HTML':
      await setMainFault(mock.server, { mode: 'error', status: 503 });
      break;
    case 'reset':
      await setMainFault(mock.server, { mode: 'reset' });
      break;
  }
  return mock.server.info.mainUrl;
}

describe.each(['A', 'B'] as const)('Strategy %s against the mock server', (strategy) => {
  it.each(BREAKAGES)('main broken (%s): the lease comes from the standby', async (how) => {
    const mainUrl = await breakMain(how);
    const { client, seen } = clientFor(mock, {
      mainUrl,
      failover: { strategy, mainAttempts: 2, attemptTimeoutMs: 300, probeIntervalMs: 60_000 },
    });
    const { leases } = await client.checkout(['ItemA']);
    expect(leases[0]!.servedBy).toBe('standby');
    expect(leases[0]!.claims).toMatchObject({ ItemA: true, hw: 'hw-1' });
    expect(client.activeService).toBe('standby');
    expect(seen.filter((e) => e === 'attemptFailed')).toHaveLength(2);
    expect(seen).toContain('failover');
    // Renewal of the standby lease works too (same lease id).
    const renewed = await client.renew(leases[0]!);
    expect(renewed).toMatchObject({ leaseId: leases[0]!.leaseId, servedBy: 'standby' });
    await client.close();
  });

  it('dormant standby with main down: STANDBY_DORMANT, never a hang', async () => {
    await setStandbyEnabled(mock.server, false);
    await setMainFault(mock.server, { mode: 'hang' });
    const { client } = clientFor(mock, {
      failover: { strategy, mainAttempts: 2, attemptTimeoutMs: 300 },
    });
    const error = await client.checkout(['ItemA']).catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('STANDBY_DORMANT');
    expect((error as Error).cause).toBeInstanceOf(AggregateError);
    await client.close();
  });
});

describe('Strategy B stickiness', () => {
  it('makes zero main attempts while on the standby', async () => {
    await setMainFault(mock.server, { mode: 'error', status: 503 });
    const counting = countingFetch(mock);
    const { client } = clientFor(mock, {
      fetch: counting.fetch,
      failover: { strategy: 'B', mainAttempts: 3, probeIntervalMs: 60_000 },
    });
    await client.checkout(['ItemA']);
    expect(counting.counts.main).toBe(3);
    const mainBefore = counting.counts.main;
    const { leases } = await client.checkout(['ItemB', 'ItemC']);
    for (const lease of leases) await client.renew(lease);
    await client.release(leases);
    expect(counting.counts.main).toBe(mainBefore);
    expect(leases.every((l) => l.servedBy === 'standby')).toBe(true);
    await client.close();
  });

  it('moves back to main once the standby is disabled', async () => {
    await setMainFault(mock.server, { mode: 'reset' });
    const { client, seen } = clientFor(mock, {
      failover: { strategy: 'B', mainAttempts: 1, probeIntervalMs: 60_000 },
    });
    expect((await client.checkout(['ItemA'])).leases[0]!.servedBy).toBe('standby');
    await clearFaults(mock.server);
    await setStandbyEnabled(mock.server, false);
    // The standby answers 403: this call goes back to main, which now serves it.
    expect((await client.checkout(['ItemA'])).leases[0]!.servedBy).toBe('main');
    expect(client.activeService).toBe('main');
    expect(seen).toContain('failback');
    await client.close();
  });

  it('moves back to main when the probe finds main recovered', async () => {
    await setMainFault(mock.server, { mode: 'error', status: 503 });
    const { client } = clientFor(mock, {
      failover: { strategy: 'B', mainAttempts: 1, probeIntervalMs: 50 },
    });
    const failback = new Promise((resolve) => client.on('failback', resolve));
    expect((await client.checkout(['ItemA'])).leases[0]!.servedBy).toBe('standby');
    await clearFaults(mock.server);
    expect(await failback).toMatchObject({ reason: 'main-recovered' });
    expect((await client.checkout(['ItemA'])).leases[0]!.servedBy).toBe('main');
    await client.close();
  });
});

describe('leases across failback', () => {
  it('renews a standby lease on recovered main by checking the item out anew', async () => {
    await setMainFault(mock.server, { mode: 'error', status: 503 });
    const { client } = clientFor(mock, {
      failover: { strategy: 'A', mainAttempts: 1 },
    });
    const { leases } = await client.checkout(['ItemA']);
    expect(leases[0]!.servedBy).toBe('standby');
    await clearFaults(mock.server);
    const renewed = await client.renew(leases[0]!);
    expect(renewed.servedBy).toBe('main');
    expect(renewed.leaseId).not.toBe(leases[0]!.leaseId);
    await client.close();
  });
});

describe('never a hang', () => {
  it('a hanging main with a dormant standby settles within the attempt timeouts', async () => {
    await setStandbyEnabled(mock.server, false);
    await setMainFault(mock.server, { mode: 'hang' });
    const { client } = clientFor(mock, {
      failover: { strategy: 'A', mainAttempts: 1, attemptTimeoutMs: 200 },
    });
    await expect(client.checkout(['ItemA'])).rejects.toMatchObject({ code: 'STANDBY_DORMANT' });
    await client.close();
  });
});
