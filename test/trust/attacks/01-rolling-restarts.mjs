// Finding 1 of issue 28: rolling restarts keep one 8-hour lease alive, offline. The lease is
// checked out online into a file store that is never edited. Then, offline, the app (a child
// process) restores it and is used until its clock reads exp - 1 min (the clock moves a minute
// every 15 ms, `has()` asked at each step), is killed with SIGKILL at once, and is restarted with
// its clock set back to a minute after the previous start: four runs. When a restart is refused
// (CLOCK_ROLLBACK), the attacker reads the time mark from the (unsealed) store and restarts with
// the clock 50 s before it, inside the 60 s tolerance: the most a restart can get.
// Then the same with short runs (another lease, another store): every run starts at one frozen
// clock reading (the store's mark after checkout, as libfaketime would pin it), restores, is used
// for 50 s of clock and killed; eight runs. The store says where a restart resumes (its
// `usedUntil`, else its mark), so the question is whether the use it never saw adds up without
// limit.
// Usage: ATTACK_PROJECT=<project with the packed packages> node 01-rolling-restarts.mjs
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from './lib/app-process.mjs';
import { detail, HOUR, hours, load, MINUTE, minutes, startMock, verdict } from './lib/harness.mjs';

const { createLicensingClient } = await load('@standby-licensing/sdk');
const { createFileLeaseStore } = await load('@standby-licensing/sdk/node');

const RUNS = 4;
const STEP_MS = MINUTE;
const PAUSE_MS = 15;
const SLOW_PAUSE_MS = 250;
const BEHIND_MARK_MS = 50_000;
const SHORT_RUNS = 8;
const SHORT_RUN_MS = 50_000;

const mock = await startMock();
const folder = await mkdtemp(join(tmpdir(), 'attack-restarts-'));
try {
  const storePath = join(folder, 'leases.json');
  const roots = [mock.standbyRoot, { pem: mock.mainRootPem }];
  const idToken = await mock.idToken();
  const online = createLicensingClient({
    mainUrl: mock.info.mainUrl,
    standbyUrl: mock.info.standbyUrl,
    auth: { idToken: () => idToken },
    trust: { rootCertificates: roots },
    hardwareId: 'hw-1',
    leaseStore: createFileLeaseStore(storePath),
  });
  const [lease] = (await online.checkout(['ItemA'])).leases;
  await online.close();
  const t0 = Date.now();
  const exp = lease.claims.exp * 1000;

  const config = {
    mainUrl: mock.info.mainUrl,
    standbyUrl: mock.info.standbyUrl,
    roots,
    idToken,
    storePath,
    offline: true,
  };
  const runs = [];
  let start = t0 + MINUTE;
  for (let run = 1; run <= RUNS; run++) {
    const entry = { run, span: 0, refused: [], tries: [] };
    runs.push(entry);
    let app = await startApp({ ...config, clock: start });
    let restored = await app.send('restore');
    entry.tries.push(restored.error ?? 'restored');
    if (restored.error === 'CLOCK_ROLLBACK') {
      entry.refused.push(restored.error);
      await app.stop('SIGKILL');
      const { timeMark } = JSON.parse(await readFile(storePath, 'utf8'));
      start = timeMark - BEHIND_MARK_MS;
      entry.atMark = true;
      app = await startApp({ ...config, clock: start });
      restored = await app.send('restore');
      entry.tries.push(`at mark - 50 s ${restored.error ?? 'restored'}`);
    }
    if (restored.error) {
      entry.refused.push(restored.error);
      await app.stop('SIGKILL');
      continue;
    }
    // A minute of clock every 15 ms, the last five minutes every 250 ms (longer than a save of
    // the store takes: the mark's lag at the kill is then what it would be in real time).
    const used = await app.send(
      `use ItemA ${exp - MINUTE} ${STEP_MS} ${PAUSE_MS} ${exp - 6 * MINUTE} ${SLOW_PAUSE_MS}`,
    );
    await app.stop('SIGKILL');
    entry.span = used.first === null ? 0 : used.last - used.first;
    const { timeMark } = JSON.parse(await readFile(storePath, 'utf8'));
    entry.markLag = used.last === null ? undefined : used.last - timeMark;
    start += MINUTE;
  }

  const total = runs.reduce((sum, r) => sum + r.span, 0);
  const gain = runs.slice(1).reduce((sum, r) => sum + r.span, 0);
  for (const r of runs) {
    const tries = r.tries.filter((t) => t !== 'restored').map((t) => `${t}, `);
    const lag = r.markLag === undefined ? '' : ` (mark ${minutes(r.markLag)} behind at kill)`;
    detail(`run ${r.run}: ${tries.join('')}licensed ${minutes(r.span)}${lag}`);
  }

  // Short runs at a frozen clock.
  const shortPath = join(folder, 'short.json');
  const again = createLicensingClient({
    mainUrl: mock.info.mainUrl,
    standbyUrl: mock.info.standbyUrl,
    auth: { idToken: () => idToken },
    trust: { rootCertificates: roots },
    hardwareId: 'hw-1',
    leaseStore: createFileLeaseStore(shortPath),
  });
  await again.checkout(['ItemA']);
  await again.close();
  // What a restart resumes at: the store's usedUntil (since the fix of issue 28), else its mark.
  const resumesAt = async () => {
    const document = JSON.parse(await readFile(shortPath, 'utf8'));
    return document.usedUntil ?? document.timeMark;
  };
  const frozen = JSON.parse(await readFile(shortPath, 'utf8')).timeMark;
  const resumedFirst = await resumesAt();
  let shortTotal = 0;
  let shortRuns = 0;
  let shortRefusal;
  for (let run = 1; run <= SHORT_RUNS; run++) {
    const app = await startApp({ ...config, storePath: shortPath, clock: frozen });
    const restored = await app.send('restore');
    if (restored.error || restored.leases.length === 0) {
      shortRefusal = `run ${run}: ${restored.error ?? 'no lease restored'}`;
      await app.stop('SIGKILL');
      break;
    }
    const used = await app.send(`use ItemA ${frozen + SHORT_RUN_MS} 5000 60`);
    await app.stop('SIGKILL');
    shortRuns += 1;
    if (used.first !== null) shortTotal += used.last - used.first;
  }
  const markMoved = (await resumesAt()) - resumedFirst;
  const unseen = shortTotal - markMoved;
  const shortText = `${shortRuns} runs of 50 s at a frozen clock, killed: ${minutes(shortTotal)} licensed, the time a restart resumes at moved ${minutes(markMoved)}${shortRefusal ? `, then ${shortRefusal}` : ''}`;
  detail(`short runs: ${shortText}`);
  // Unseen use may be about a minute (plus the tolerance) in all, not a minute per run.
  const shortHolds = unseen <= 2 * MINUTE;

  const refused = runs.find((r) => r.refused.length > 0);
  const text = refused
    ? `rolling restarts (kill -9, clock set back, offline): run ${refused.run} got ${refused.refused[0]}; restarts at the tolerance edge gained ${minutes(gain)} in all; ${RUNS} runs licensed ${hours(total)} of one 8 h lease`
    : `rolling restarts (kill -9, clock set back, offline): ${RUNS} runs licensed ${hours(total)} of one 8 h lease; restarts gained ${hours(gain)}`;
  // A restart may gain about a minute of mark lag plus the tolerance, never a lease's worth.
  const longHolds = gain <= (RUNS - 1) * 3 * MINUTE && total <= 8 * HOUR + 3 * MINUTE;
  verdict(longHolds && shortHolds ? 'HOLDS' : 'BROKEN', `${text}; ${shortText}`);
} finally {
  await mock.close();
  await rm(folder, { recursive: true, force: true });
}
