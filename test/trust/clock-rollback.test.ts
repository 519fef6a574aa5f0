// Clock rollback, offline (DECISIONS.md "Lease trust (third wave)"): the lease store's time mark
// only ever rises (every verified lease's iat, the services' time of every answer, the local
// clock at every call that accepted a lease), so a clock set forward, used, then set back is
// caught; a clock that ran ahead of every lease and was corrected leaves no mark and loses
// nothing; an online exchange re-anchors the mark on the services' time; a clock merely slow is
// corrected by the offset kept in the store; a time mark earlier than a lease it holds was
// edited. Rules: sdk/src/lease/trusted-clock.ts (accepted, observe, assertNotRolledBack),
// sdk/src/lease/lease-state.ts (the mark kept), sdk/src/lease/store-document.ts (checkTimes),
// sdk/src/client/trusted-keys.ts (a JWK set answer's Date: catchUp).
import { appendFile, copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rejection } from '@sdk-test/helpers/rejection.js';
import { hmacSealing } from '@sdk-test/helpers/sealing.js';
import type { LicensingClientOptions } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { offline } from '@test/helpers/lying-network.js';
import {
  clientFor,
  type MockLicensing,
  setClockOffset,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { plantLeases, readStoreFile, writeStoreFile } from '@test/helpers/store-documents.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const HOUR = 3_600_000;

let mock: MockLicensing;
let folder: string;
let files = 0;
beforeAll(async () => {
  mock = await startMockLicensing();
  folder = await mkdtemp(join(tmpdir(), 'trust-rollback-'));
});
afterEach(() => setClockOffset(mock.server, 0));
afterAll(async () => {
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

function storePath(): string {
  files += 1;
  return join(folder, `store-${files}.json`);
}

/** A settable clock: real time plus `skewMs`. */
function settableClock(skewMs = 0) {
  const clock = { skewMs, now: () => Date.now() + clock.skewMs };
  return clock;
}

/** A client on the lease store file `path` reading `clock`; offline unless told otherwise. */
function clientOn(
  path: string,
  clock: { now: () => number },
  extra: Partial<LicensingClientOptions> = {},
) {
  return clientFor(mock, {
    leaseStore: createFileLeaseStore(path),
    now: clock.now,
    fetch: offline,
    ...extra,
  }).client;
}

/** Online at the true time: checks `items` out and renews the first, into `path`. */
async function renewedAtT(path: string, items = ['ItemA']) {
  const client = clientOn(path, settableClock(), { fetch: globalThis.fetch });
  const { leases } = await client.checkout(items);
  const renewed = await client.renew(leases[0]!);
  await client.close();
  return [renewed, ...leases.slice(1)];
}

describe('a clock set forward, used, then set back', () => {
  it('renewed at T, restored at T+7 h, set back to T+1 h: restore() and verify() give CLOCK_ROLLBACK', async () => {
    const path = storePath();
    const [lease] = await renewedAtT(path);
    const clock = settableClock(7 * HOUR);
    const client = clientOn(path, clock);
    expect((await client.restore()).leases.map((l) => l.leaseId)).toEqual([lease!.leaseId]);

    clock.skewMs = HOUR;
    expect(await rejection(client.restore())).toMatchObject({ code: 'CLOCK_ROLLBACK' });
    expect(await rejection(client.verify(lease!.token))).toMatchObject({ code: 'CLOCK_ROLLBACK' });
    await client.close();

    // The mark is in the store: a restarted app at T+1 h is refused too, and loses nothing.
    const restarted = clientOn(path, clock);
    expect(await rejection(restarted.restore())).toMatchObject({ code: 'CLOCK_ROLLBACK' });
    expect((await readStoreFile(path)).leases.map((entry) => entry.token)).toEqual([lease!.token]);
    await restarted.close();
  });

  it('verify() at T+7 h raises the mark as restore() does', async () => {
    const path = storePath();
    const [lease] = await renewedAtT(path);
    const clock = settableClock(7 * HOUR);
    const client = clientOn(path, clock);
    expect((await client.verify(lease!.token)).leaseId).toBe(lease!.leaseId);
    await client.close();
    clock.skewMs = HOUR;
    const restarted = clientOn(path, clock);
    expect(await rejection(restarted.restore())).toMatchObject({ code: 'CLOCK_ROLLBACK' });
    await restarted.close();
  });

  it('within the tolerance of the mark is no rollback', async () => {
    const path = storePath();
    await renewedAtT(path);
    const clock = settableClock(7 * HOUR);
    const client = clientOn(path, clock);
    expect((await client.restore()).leases).toHaveLength(1);
    clock.skewMs = 7 * HOUR - 30_000;
    expect((await client.restore()).leases).toHaveLength(1);
    await client.close();
  });

  it('a corrected clock that then reaches a service is re-anchored: no lockout', async () => {
    const path = storePath();
    const [a] = await renewedAtT(path);
    const clock = settableClock(7 * HOUR);
    const client = clientOn(path, clock);
    expect((await client.restore()).leases).toHaveLength(1);
    await client.close();

    // Back to the true time: offline this is a rollback...
    clock.skewMs = 0;
    const corrected = clientOn(path, clock, { fetch: globalThis.fetch });
    expect(await rejection(corrected.restore())).toMatchObject({ code: 'CLOCK_ROLLBACK' });
    // ...until the app reaches a service, whose time is the truth.
    const [c] = (await corrected.checkout(['ItemC'])).leases;
    expect((await corrected.restore()).leases.map((l) => l.leaseId)).toEqual([
      a!.leaseId,
      c!.leaseId,
    ]);
    await corrected.close();
    const restarted = clientOn(path, clock);
    expect((await restarted.restore()).leases).toHaveLength(2);
    await restarted.close();
  });
});

describe('a clock that ran ahead of every lease', () => {
  it('9 h ahead (no lease accepted) then corrected: nothing deleted, nothing locked', async () => {
    const path = storePath();
    const leases = await renewedAtT(path, ['ItemA', 'ItemB']);
    const tokens = leases.map((lease) => lease.token);
    const clock = settableClock(9 * HOUR);
    const ahead = clientOn(path, clock);
    expect((await ahead.restore()).leases).toEqual([]);
    expect((await readStoreFile(path)).leases.map((entry) => entry.token).sort()).toEqual(
      [...tokens].sort(),
    );
    expect(await rejection(ahead.verify(tokens[0]!))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'expired',
    });

    clock.skewMs = 0;
    expect((await ahead.restore()).leases).toHaveLength(2);
    await ahead.close();
    const restarted = clientOn(path, clock);
    expect((await restarted.restore()).leases).toHaveLength(2);
    await restarted.close();
  });
});

describe('a clock merely slow', () => {
  it('2 h slow, offset learnt online: restores offline without a false rollback', async () => {
    const path = storePath();
    const clock = settableClock(-2 * HOUR);
    const online = clientOn(path, clock, { fetch: globalThis.fetch });
    const [lease] = (await online.checkout(['ItemA'])).leases;
    await online.close();

    for (let restart = 0; restart < 2; restart++) {
      const client = clientOn(path, clock);
      const [restored] = (await client.restore()).leases;
      expect(restored?.leaseId).toBe(lease!.leaseId);
      // Local times: 8 h after the (local) issue, not 8 h after the services' issue time.
      expect(Math.abs(restored!.expiresAt - lease!.expiresAt)).toBeLessThanOrEqual(3_000);
      expect(restored!.expiresAt - clock.now()).toBeGreaterThan(7 * HOUR);
      expect((await client.verify(lease!.token)).leaseId).toBe(lease!.leaseId);
      await client.close();
    }
  });
});

describe('a time mark edited down', () => {
  /**
   * Yesterday at T the user had ItemA (lease L0, kept aside); today, at T+20 h on the services'
   * clock, the user's lease store holds ItemA renewed. Returns both.
   */
  async function yesterdayAndToday(sealing?: ReturnType<typeof hmacSealing>) {
    const yesterday = storePath();
    const [old] = await renewedAtT(yesterday);
    await setClockOffset(mock.server, 20 * HOUR);
    const path = storePath();
    const today = clientOn(path, settableClock(20 * HOUR), {
      fetch: globalThis.fetch,
      leaseStore: createFileLeaseStore(path, sealing),
    });
    const [lease] = (await today.checkout(['ItemA'])).leases;
    await today.renew(lease!);
    await today.close();
    // The services stay at T+20 h (afterEach puts them back).
    return { path, old: old! };
  }

  it('honestly set back to T+1 h, the clock is caught (the control)', async () => {
    const { path } = await yesterdayAndToday();
    const client = clientOn(path, settableClock(HOUR));
    expect(await rejection(client.restore())).toMatchObject({ code: 'CLOCK_ROLLBACK' });
    await client.close();
  });

  it('time mark edited to 0 with an older genuine lease planted: LEASE_STORE_INVALID edited', async () => {
    const { path, old } = await yesterdayAndToday();
    const document = await readStoreFile(path);
    const planted = [{ item: old.item, token: old.token, servedBy: old.servedBy }];
    await writeStoreFile(path, { ...plantLeases(document, planted), timeMark: 0 });

    const client = clientOn(path, settableClock(HOUR));
    expect(await rejection(client.restore())).toMatchObject({
      code: 'LEASE_STORE_INVALID',
      reason: 'edited',
    });
    await client.close();
  });

  it('time mark edited to 0 with the leases left as they were: edited', async () => {
    const { path } = await yesterdayAndToday();
    await writeStoreFile(path, { ...(await readStoreFile(path)), timeMark: 0 });
    const client = clientOn(path, settableClock(HOUR));
    expect(await rejection(client.restore())).toMatchObject({
      code: 'LEASE_STORE_INVALID',
      reason: 'edited',
    });
    await client.close();
  });

  it.each([
    ['removed', (path: string) => rm(path)],
    ['replaced by other text', (path: string) => writeFile(path, 'not a lease store\n')],
    ['edited under its seal', (path: string) => appendFile(path, ' ')],
  ])(
    "verify() online, the sealed store %s: judged on the services' time, not the set-back clock",
    async (_name, damage) => {
      const sealing = hmacSealing('keychain secret');
      const { path, old } = await yesterdayAndToday(sealing);
      const leaseStore = createFileLeaseStore(path, sealing);
      // The control: the intact store's mark catches the clock set back.
      const intact = clientOn(path, settableClock(HOUR), { leaseStore, fetch: globalThis.fetch });
      expect(await rejection(intact.verify(old.token))).toMatchObject({ code: 'CLOCK_ROLLBACK' });
      await intact.close();

      await damage(path);
      // The store that kept the mark is gone; the services' answer (their JWK set) still shows
      // their time, T+20 h, when yesterday's lease had expired.
      const client = clientOn(path, settableClock(HOUR), { leaseStore, fetch: globalThis.fetch });
      expect(await rejection(client.verify(old.token))).toMatchObject({
        code: 'TOKEN_INVALID',
        reason: 'expired',
      });
      await client.close();
    },
  );

  it('the mark of a store copied from before the rollback is kept by the copy', async () => {
    const { path } = await yesterdayAndToday();
    const copy = storePath();
    await copyFile(path, copy);
    const client = clientOn(copy, settableClock(HOUR));
    expect(await rejection(client.restore())).toMatchObject({ code: 'CLOCK_ROLLBACK' });
    await client.close();
  });
});
