// One drill run, end to end: the mock server, the gate in front of main, the client fleets, the
// scripted outage, then the figures, the targets, and the JSON and SVG results.
import { cpus, loadavg } from 'node:os';
import { DEFAULTS, type FailoverOptions } from '@standby-licensing/sdk';
import { type ChildServer, readCpuMs, startChildServer } from '../bench/child-server.js';
import { createSigningKey, mainRootPem } from '../bench/mock-api.js';
import type { PhaseMarks } from './drill-figures.js';
import type { DrillOptions } from './drill-options.js';
import type { DrillResult, EffectiveFailover, FleetCost } from './drill-result.js';
import { writeDrillResults } from './drill-results.js';
import { type DrillSchedule, planDrill } from './drill-schedule.js';
import type { FleetConfig, FleetReport } from './fleet.js';
import { type FleetPool, startFleetPool } from './fleet-pool.js';
import { mergeFleetRecords } from './fleet-records.js';
import { type MainGate, startMainGate } from './main-gate.js';
import { createOutageActions } from './outage-actions.js';
import { readRunQueueWaitMs } from './run-queue-wait.js';

/** Options of {@link runDrill} besides the drill's own. */
export interface RunDrillHooks {
  /** Progress lines. Default: none. */
  log?: (line: string) => void;
}

function defaultName(options: DrillOptions, started: Date): string {
  const stamp = started.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${options.strategy}-${options.outage}-${options.clients}-herd-${options.herd}-${stamp}`;
}

const sleepUntil = (epoch: number, atMs: number) =>
  new Promise<void>((done) => setTimeout(done, Math.max(0, epoch + atMs - Date.now())));

/** Splits the apps over the fleets round-robin, with each fleet's restarts. */
function fleetConfigs(
  options: DrillOptions,
  schedule: DrillSchedule,
  shared: Omit<FleetConfig, 'apps' | 'restarts' | 'options'>,
): FleetConfig[] {
  const count = Math.max(1, Math.min(options.workers, options.clients));
  return Array.from({ length: count }, (_, w) => {
    const apps: number[] = [];
    for (let app = w; app < options.clients; app += count) apps.push(app);
    return {
      ...shared,
      apps,
      options,
      restarts: schedule.restarts.filter((r) => r.app % count === w),
    };
  });
}

/**
 * A fleet's samples as one value per second of the run. A sample covers the time since the one
 * before it (more than a second when the fleet's event loop stalled): its CPU is spread over the
 * seconds it covers, its largest event-loop delay counts for each of them.
 */
function fleetCost(report: FleetReport, apps: number, endMs: number): FleetCost {
  const steps = Math.ceil(endMs / 1000);
  const cpu = new Array<number>(steps).fill(0);
  const eld = new Array<number>(steps).fill(0);
  const wait = new Array<number>(steps).fill(0);
  let from = 0;
  for (const sample of report.samples) {
    const to = Math.min(sample.t, endMs);
    const covered = Math.max(1, to - from);
    for (let second = Math.floor(from / 1000); second * 1000 < to && second < steps; second++) {
      const overlap = Math.min(to, (second + 1) * 1000) - Math.max(from, second * 1000);
      cpu[second]! += (sample.cpuMs * overlap) / covered / 1000;
      wait[second]! += (sample.runQueueMs * overlap) / covered;
      eld[second] = Math.max(eld[second]!, sample.eldMaxMs);
    }
    from = to;
  }
  return {
    apps,
    cpuCores: cpu.map((c) => +c.toFixed(3)),
    eldMaxMs: eld.map((e) => +e.toFixed(1)),
    runQueueMs: wait.map((w) => Math.round(w)),
    peakRssMiB: Math.round(Math.max(0, ...report.samples.map((s) => s.rssMiB))),
    connections: report.connections,
    skippedCalls: report.skippedCalls,
  };
}

/**
 * Runs one drill: starts the mock server (child process, `--admin`, standby switched off), a
 * {@link MainGate} in front of main, and the fleets; begins every fleet on one epoch; breaks main,
 * enables the standby, repairs main and disables the standby on schedule; then stops the fleets,
 * computes the figures and targets from their records, and writes `<name>.json` and
 * `<name>.svg` to `options.outDir`. Everything it started is stopped, also on failure.
 *
 * @example
 * const result = await runDrill({ ...DRILL_DEFAULTS, clients: 300 }, { log: console.error });
 * console.log(result.targets);
 */
export async function runDrill(
  options: DrillOptions,
  hooks: RunDrillHooks = {},
): Promise<DrillResult> {
  const log = hooks.log ?? (() => {});
  const started = new Date();
  const loadBefore = loadavg()[0]!;
  const name = options.runName ?? defaultName(options, started);
  const failover: FailoverOptions = { strategy: options.strategy, ...options.failover };
  const effective: EffectiveFailover = { ...DEFAULTS.failover, ...failover };
  const schedule = planDrill(options);
  let server: ChildServer | undefined;
  let gate: MainGate | undefined;
  let pool: FleetPool | undefined;
  let sampler: ReturnType<typeof setInterval> | undefined;
  try {
    server = await startChildServer({ args: ['--admin', ...options.serverArgs], fdLimit: 65_536 });
    gate = await startMainGate({ targetPort: Number(new URL(server.origin).port) });
    const actions = createOutageActions(options.outage, server, gate);
    await actions.disableStandby();
    const roots = [await createSigningKey(server), { pem: await mainRootPem(server) }];
    const mainUrl = `http://127.0.0.1:${gate.port}/main`;
    log(`mock server ${server.origin}, main through ${mainUrl}; starting ${options.clients} apps`);
    const configs = fleetConfigs(options, schedule, {
      mainUrl,
      standbyUrl: server.info.standbyUrl,
      idpUrl: server.info.idpUrl,
      roots,
      failover,
    });
    pool = await startFleetPool(configs, { inProcess: options.workers === 0 });
    const epoch = Date.now() + 500;
    pool.begin(epoch);
    const now = () => Date.now() - epoch;
    await sleepUntil(epoch, 0);

    const serverCpuCores: number[] = [];
    const orchestratorCpuCores: number[] = [];
    const serverRunQueueMs: number[] = [];
    let serverWait = readRunQueueWaitMs(server.pid) ?? 0;
    let serverCpu = readCpuMs(server.pid);
    let ownCpu = process.cpuUsage();
    let second = 0;
    const liveServer = server;
    const livePool = pool;
    sampler = setInterval(() => {
      let cpu = serverCpu;
      try {
        cpu = readCpuMs(liveServer.pid);
      } catch {
        // A failed read (the server gone, no file descriptor left) leaves a gap, not a crash.
      }
      serverCpuCores.push(+((cpu - serverCpu) / 1000).toFixed(3));
      serverCpu = cpu;
      const wait = readRunQueueWaitMs(liveServer.pid) ?? serverWait;
      serverRunQueueMs.push(Math.round(wait - serverWait));
      serverWait = wait;
      const own = process.cpuUsage(ownCpu);
      ownCpu = process.cpuUsage();
      orchestratorCpuCores.push(+((own.user + own.system) / 1e6).toFixed(3));
      if (++second % 10 === 0) {
        void livePool.progress().then(
          (p) =>
            log(
              `+${Math.round(now() / 1000)} s: ${p.onMain} on main, ${p.onStandby} on the standby, ${p.withoutLease} without a lease, ${p.busy} calls in flight`,
            ),
          () => undefined,
        );
      }
    }, 1000);

    const marks: PhaseMarks = { ...schedule };
    /** Runs an action at its time; resolves when it began and when it was seen completed. */
    const step = async (atMs: number, what: string, action: () => Promise<void>) => {
      await sleepUntil(epoch, atMs);
      const startMs = now();
      await action();
      log(`+${(now() / 1000).toFixed(1)} s: ${what}`);
      return { startMs, doneMs: now() };
    };
    marks.breakMs = (await step(schedule.breakMs, 'main breaks', actions.breakMain)).doneMs;
    const enable = await step(schedule.enableMs, 'standby enabled', actions.enableStandby);
    marks.enableStartMs = enable.startMs;
    marks.enableMs = enable.doneMs;
    marks.recoverMs = (await step(schedule.recoverMs, 'main recovers', actions.recoverMain)).doneMs;
    marks.disableMs = (
      await step(schedule.disableMs, 'standby disabled', actions.disableStandby)
    ).doneMs;
    await sleepUntil(epoch, schedule.endMs);
    marks.endMs = now();
    clearInterval(sampler);
    sampler = undefined;
    const reports = await pool.stop();
    log('fleets stopped; computing the figures');

    const records = mergeFleetRecords(reports.map((r) => r.records));
    const result = writeDrillResults(
      {
        name,
        startedAt: started.toISOString(),
        options,
        clientFailover: failover,
        effectiveFailover: effective,
        schedule,
        marks,
        cost: {
          serverCpuCores,
          serverRunQueueMs,
          orchestratorCpuCores,
          fleets: reports.map((report, i) =>
            fleetCost(report, configs[i]!.apps.length, marks.endMs),
          ),
          mainGateConnections: gate.accepted,
        },
        machine: {
          node: process.version,
          cpus: cpus().length,
          loadAverage1mBefore: loadBefore,
          loadAverage1mAfter: loadavg()[0]!,
        },
      },
      records,
    );
    return result;
  } finally {
    if (sampler) clearInterval(sampler);
    pool?.kill();
    await gate?.close();
    await server?.close();
  }
}
