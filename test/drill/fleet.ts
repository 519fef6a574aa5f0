// A fleet of simulated apps run by one process: their schedule, their shared connection pool,
// and what the process itself costs (CPU, event-loop delay, memory) second by second.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FailoverOptions, TrustedRoot } from '@standby-licensing/sdk';
import { Agent } from 'undici';
import type { DrillOptions } from './drill-options.js';
import { scheduleApp } from './drill-schedule.js';
import { createFleetRecorder, type FleetRecords } from './fleet-records.js';
import { readRunQueueWaitMs } from './run-queue-wait.js';
import { createSeededRandom } from './seeded-random.js';
import { createSimulatedApp, type SimulatedApp } from './simulated-app.js';

/** What one fleet runs: its apps and everything they share. */
export interface FleetConfig {
  /** Indexes of the apps this fleet runs (of `options.clients`). */
  apps: number[];
  options: Pick<DrillOptions, 'seed' | 'clients' | 'callIntervalS' | 'phases' | 'connections'>;
  /** Restarts of this fleet's apps, ms from the run's start. */
  restarts: Array<{ app: number; atMs: number }>;
  mainUrl: string;
  standbyUrl: string;
  idpUrl: string;
  roots: TrustedRoot[];
  /** The failover options every client gets. */
  failover: FailoverOptions;
}

/** One second of the fleet process: what it cost. */
export interface FleetSample {
  /** End of the second, ms from the run's start. */
  t: number;
  /** CPU time (user + system) used in that second, ms. */
  cpuMs: number;
  /** Largest event-loop delay seen in that second, ms. */
  eldMaxMs: number;
  /** Time the fleet's main thread waited for a CPU in that second, ms (Linux; else 0). */
  runQueueMs: number;
  rssMiB: number;
}

/** A live count of where the fleet's apps stand. */
export interface FleetProgress {
  apps: number;
  onMain: number;
  onStandby: number;
  withoutLease: number;
  busy: number;
}

/** Everything a fleet recorded, sent back when it stops. */
export interface FleetReport {
  records: FleetRecords;
  samples: FleetSample[];
  /** New connections opened by the fleet's Agent, by origin. */
  connections: Record<string, number>;
  /** Call ticks skipped because the app's previous call was still running. */
  skippedCalls: number;
}

/** A fleet (see {@link createFleet}). */
export interface Fleet {
  /** Starts the schedule; `epochMs` (ms since 1970) is the run's start, shared by every fleet. */
  begin(epochMs: number): void;
  progress(): FleetProgress;
  /** Stops every app (closing its client) and returns the records. */
  stop(): Promise<FleetReport>;
}

/**
 * Creates the apps of `config.apps`, each with its own SDK client, all sharing one undici Agent
 * (one pool of at most `connections` sockets per origin for the whole process, as one per client
 * would open thousands of sockets no real app would share). Each app starts at its slot of the ramp, then calls every
 * `callIntervalS` at its own phase; planned restarts happen on time.
 *
 * @example
 * const fleet = createFleet(config);
 * fleet.begin(Date.now() + 1000);
 * // ... later
 * const report = await fleet.stop();
 */
export function createFleet(config: FleetConfig): Fleet {
  const recorder = createFleetRecorder();
  // Bounded per origin: without a bound, a burst (or an event-loop stall) opens one socket per
  // waiting request, thousands at once, past the server's accept backlog and the fd limits.
  const agent = new Agent({
    connections: config.options.connections,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
  });
  const connections: Record<string, number> = {};
  agent.on('connect', (origin) => {
    const key = String(origin);
    connections[key] = (connections[key] ?? 0) + 1;
  });
  let epoch = Number.NaN;
  const now = () => performance.timeOrigin + performance.now() - epoch;
  const env = {
    mainUrl: config.mainUrl,
    standbyUrl: config.standbyUrl,
    idpUrl: config.idpUrl,
    roots: config.roots,
    failover: config.failover,
    recorder,
    now,
    dispatcher: agent,
  };
  // Stream numbers above every app index keep the SDK's randomness apart from the schedule's.
  const apps = config.apps.map((index) =>
    createSimulatedApp(env, index, createSeededRandom(config.options.seed, 1_000_000 + index)),
  );
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const samples: FleetSample[] = [];
  const intervalMs = config.options.callIntervalS * 1000;
  let stopped = false;

  const at = (dueMs: number, run: () => void) => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        if (!stopped) run();
      },
      Math.max(0, dueMs - now()),
    );
    timers.add(timer);
  };

  const runApp = (app: SimulatedApp) => {
    const { startMs, phaseMs } = scheduleApp(config.options, app.index);
    const tick = (k: number) => {
      void app.call();
      at(startMs + phaseMs + (k + 1) * intervalMs, () => tick(k + 1));
    };
    at(startMs, () => {
      void app.start();
      at(startMs + phaseMs, () => tick(0));
    });
  };

  const eld = monitorEventLoopDelay({ resolution: 10 });
  let sampler: ReturnType<typeof setInterval> | undefined;

  return {
    begin(epochMs) {
      epoch = epochMs;
      const byIndex = new Map(apps.map((app) => [app.index, app]));
      for (const app of apps) runApp(app);
      for (const { app, atMs } of config.restarts) {
        const target = byIndex.get(app);
        if (target) at(atMs, () => void target.restart());
      }
      eld.enable();
      let cpu = process.cpuUsage();
      let waited = readRunQueueWaitMs() ?? 0;
      sampler = setInterval(() => {
        const used = process.cpuUsage(cpu);
        cpu = process.cpuUsage();
        const waitedNow = readRunQueueWaitMs() ?? waited;
        samples.push({
          t: now(),
          cpuMs: (used.user + used.system) / 1000,
          eldMaxMs: eld.max / 1e6,
          runQueueMs: waitedNow - waited,
          rssMiB: process.memoryUsage.rss() / 2 ** 20,
        });
        eld.reset();
        waited = waitedNow;
      }, 1000);
    },
    progress() {
      const p: FleetProgress = {
        apps: apps.length,
        onMain: 0,
        onStandby: 0,
        withoutLease: 0,
        busy: 0,
      };
      for (const app of apps) {
        if (app.holder === 'main') p.onMain++;
        else if (app.holder === 'standby') p.onStandby++;
        else p.withoutLease++;
        if (app.busy) p.busy++;
      }
      return p;
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      if (sampler) clearInterval(sampler);
      eld.disable();
      // Taken before the clients close: requests cut short by the shutdown are not the drill's.
      const report: FleetReport = {
        records: recorder.snapshot(),
        samples,
        connections,
        skippedCalls: apps.reduce((sum, app) => sum + app.skippedCalls, 0),
      };
      await Promise.all(apps.map((app) => app.stop()));
      await agent.destroy().catch(() => undefined);
      return report;
    },
  };
}
