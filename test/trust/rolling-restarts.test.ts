// The time mark follows use (DECISIONS.md "Trust while the app runs (fourth wave)"): whenever a
// held lease is found valid on a trusted time more than 60 s past the saved mark, the mark rises
// to that time and is saved within a second, so an app killed at any moment (`kill -9`) has left
// a mark at most about a minute old, and restarting it with the clock set back gains at most that,
// never a lease's worth. Finding 1 of issue 28: four kill-and-restart runs, each with the clock
// set back to a minute after the previous start, licensed 27.8 h of one 8-hour lease. Rules:
// sdk/src/client/client-status.ts (judged on the trusted time), sdk/src/client/use-mark.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryLeaseStore, type LeaseStore } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { type AppConfig, startApp } from '@test/helpers/app-process.js';
import { offline } from '@test/helpers/lying-network.js';
import {
  clientFor,
  type MockLicensing,
  mintIdToken,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { readStoreFile } from '@test/helpers/store-documents.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MINUTE = 60_000;

let mock: MockLicensing;
let folder: string;
beforeAll(async () => {
  mock = await startMockLicensing();
  folder = await mkdtemp(join(tmpdir(), 'trust-restarts-'));
});
afterAll(async () => {
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

/** Waits until the store file's time mark reaches `atLeast` (ms); resolves the mark. */
async function markReaches(path: string, atLeast: number): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const { timeMark } = await readStoreFile(path);
    if (timeMark >= atLeast) return timeMark;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return (await readStoreFile(path)).timeMark;
}

describe('an app killed and restarted with its clock set back', () => {
  it('gets CLOCK_ROLLBACK, not another lease of use, once it held a lease to near its exp', async () => {
    const storePath = join(folder, 'rolling.json');
    // T0: the lease is checked out online (a sealed store or not: nothing is ever edited).
    const online = clientFor(mock, { leaseStore: createFileLeaseStore(storePath) }).client;
    const [lease] = (await online.checkout(['ItemA'])).leases;
    await online.close();
    const t0 = Date.now();
    const exp = lease!.claims.exp * 1000;
    const config: AppConfig = {
      mainUrl: mock.server.info.mainUrl,
      standbyUrl: mock.server.info.standbyUrl,
      roots: [mock.standbyRoot, { pem: mock.mainRootPem }],
      idToken: await mintIdToken(mock.server),
      storePath,
      clockOffsetMs: MINUTE,
      offline: true,
    };

    // Run 1, offline, a minute after T0: the app restores the lease and uses it until the
    // clock reads exp - 1 min; then it is killed.
    const first = await startApp(config);
    expect(await first.send('restore')).toEqual({ leases: [lease!.leaseId] });
    await first.send(`clock ${exp - MINUTE - Date.now()}`);
    expect(await first.send('has ItemA')).toEqual({ has: true });
    const mark = await markReaches(storePath, exp - 2 * MINUTE);
    expect(mark).toBeGreaterThanOrEqual(exp - 2 * MINUTE);
    expect(await first.stop('SIGKILL')).toBe('SIGKILL');

    // Run 2: restarted with the clock set back to a minute after the previous start.
    const second = await startApp({ ...config, clockOffsetMs: t0 + 2 * MINUTE - Date.now() });
    expect(await second.send('restore')).toMatchObject({ error: 'CLOCK_ROLLBACK' });
    expect(await second.send('has ItemA')).toEqual({ has: false });
    await second.stop('SIGKILL');

    // Run 3: set back only as far as the tolerance allows (30 s before the mark): no rollback,
    // but the restart resumes where the killed app was (plus the minute it could have gone on
    // unsaved), which is the lease's exp: nothing left to use.
    const third = await startApp({ ...config, clockOffsetMs: mark - 30_000 - Date.now() });
    expect(await third.send('restore')).toEqual({ leases: [lease!.leaseId] });
    expect(await third.send('has ItemA')).toEqual({ has: false });
    await third.stop('SIGKILL');

    // The store still holds the mark the app reached: nothing the restarts did lowered it.
    expect((await readStoreFile(storePath)).timeMark).toBeGreaterThanOrEqual(mark);
  }, 60_000);

  it('runs shorter than a minute, each at the same frozen clock, use up the lease a minute a run', async () => {
    // A clock pinned at one reading for every start (as libfaketime would): each run restores,
    // uses the lease and is killed before the minute after which the time mark is saved. A run
    // is charged that minute up front (usedUntil), so the lease runs out instead of lasting for
    // ever; 3 minutes of it left give at most 3 runs.
    const storePath = join(folder, 'frozen.json');
    const online = clientFor(mock, { leaseStore: createFileLeaseStore(storePath) }).client;
    const [lease] = (await online.checkout(['ItemA'])).leases;
    await online.close();
    const frozenAt = lease!.claims.exp * 1000 - 3 * MINUTE;
    const config: AppConfig = {
      mainUrl: mock.server.info.mainUrl,
      standbyUrl: mock.server.info.standbyUrl,
      roots: [mock.standbyRoot, { pem: mock.mainRootPem }],
      idToken: await mintIdToken(mock.server),
      storePath,
      clockOffsetMs: 0,
      offline: true,
    };
    const licensedRuns: number[] = [];
    for (let run = 1; run <= 6; run++) {
      const app = await startApp({ ...config, clockOffsetMs: frozenAt - Date.now() });
      await app.send('restore');
      if ((await app.send('has ItemA')).has === true) licensedRuns.push(run);
      expect(await app.stop('SIGKILL')).toBe('SIGKILL');
    }
    expect(licensedRuns.length).toBeGreaterThanOrEqual(1);
    expect(licensedRuns.length).toBeLessThanOrEqual(3);
    expect(licensedRuns).toEqual(licensedRuns.map((_, i) => i + 1));
  }, 90_000);
});

describe('quick honest restarts', () => {
  it('write the store once a minute of use, not on every check, while a restart is charged', async () => {
    // Three quick restarts each charge the next a minute (usedUntil): the last starts 3+ min
    // ahead of its clock. Its first check saves the next usedUntil a minute ahead, and no check
    // within that minute saves again (before the fix every save was followed by another).
    const inner = createMemoryLeaseStore();
    let saves = 0;
    const store: LeaseStore = {
      load: () => inner.load(),
      save: async (text) => {
        saves += 1;
        // A real store's write leaves the event loop (a save loop shows as a count, not a hang).
        await new Promise((resolve) => setTimeout(resolve, 1));
        await inner.save(text);
      },
      clear: () => inner.clear(),
    };
    const online = clientFor(mock, { leaseStore: store }).client;
    await online.checkout(['ItemA']);
    await online.close({ release: false });
    for (let run = 1; run <= 3; run++) {
      const app = clientFor(mock, { leaseStore: store, fetch: offline }).client;
      expect((await app.restore()).leases).toHaveLength(1);
      await app.close({ release: false });
    }
    const app = clientFor(mock, { leaseStore: store, fetch: offline }).client;
    await app.restore();
    saves = 0;
    for (let i = 0; i < 20; i++) {
      expect(app.has('ItemA')).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await app.close({ release: false });
    // At most the save a check may start plus the one on close.
    expect(saves).toBeLessThanOrEqual(2);
  });
});
