// One drill run, end to end: the mock server, the gate in front of main, the client fleets, the
// scripted outage, then the figures, the targets, and the JSON and SVG results.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { type BreakerOptions, DEFAULTS, type FailoverOptions } from '@standby-licensing/sdk';
import { type ChildServer, REPO_ROOT, readCpuMs, startChildServer } from '../bench/child-server.js';
import { createSigningKey, mainRootPem } from '../bench/mock-api.js';
import { computeDrillFigures, type DrillFigures, type PhaseMarks } from './drill-figures.js';
import type { DrillOptions } from './drill-options.js';
import { type DrillSchedule, planDrill } from './drill-schedule.js';
import { checkTargets, type TargetCheck } from './drill-targets.js';
import type { FleetConfig, FleetReport } from './fleet.js';
import { type FleetPool, startFleetPool } from './fleet-pool.js';
import { mergeFleetRecords } from './fleet-records.js';
import { summarizeHarnessLoad } from './harness-load.js';
import { type MainGate, startMainGate } from './main-gate.js';
import { createOutageActions } from './outage-actions.js';
import { readRunQueueWaitMs } from './run-queue-wait.js';
import { renderTimelineChart } from './timeline-chart.js';

/** What one fleet process cost over the run. */
export interface FleetCost {
  apps: number;
  /** CPU used per second, in cores (1 = one core busy). */
  cpuCores: number[];
  /** Largest event-loop delay per second, ms. */
  eldMaxMs: number[];
  /** Time its main thread waited for a CPU, per second, ms. */
  runQueueMs: number[];
  peakRssMiB: number;
  /** New connections by origin (one Agent per fleet). */
  connections: Record<string, number>;
  skippedCalls: number;
}

/** Every failover option of the clients, defaults included. */
export type EffectiveFailover = Required<Omit<FailoverOptions, 'breaker'>> & {
  breaker: BreakerOptions | false;
};

/** Everything a run wrote to its JSON file. */
export interface DrillResult {
  name: string;
  startedAt: string;
  options: DrillOptions;
  /** The failover options handed to every client. */
  clientFailover: FailoverOptions;
  /** The failover options the clients ran with: the SDK's defaults with `clientFailover` over them. */
  effectiveFailover: EffectiveFailover;
  schedule: DrillSchedule;
  /** When each action completed, ms from the start. */
  marks: PhaseMarks;
  figures: DrillFigures;
  targets: TargetCheck[];
  cost: {
    /** Mock server CPU per second, in cores. */
    serverCpuCores: number[];
    /** Time the mock server's main thread waited for a CPU, per second, ms. */
    serverRunQueueMs: number[];
    /** This process (the gate in front of main relays every main request) per second, in cores. */
    orchestratorCpuCores: number[];
    fleets: FleetCost[];
    /** Connections the gate in front of main accepted. */
    mainGateConnections: number;
  };
  /** The harness's own load per phase, and warnings where it was saturated. */
  harness: ReturnType<typeof summarizeHarnessLoad>;
  machine: { node: string; cpus: number; loadAverage1mBefore: number; loadAverage1mAfter: number };
  files: { json: string; svg: string };
}

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

/** The chart of a run: requests/s, apps per lease holder, CPU. */
function drawChart(result: Omit<DrillResult, 'files'>): string {
  const { figures, options, marks, cost } = result;
  const o = options;
  const steps = figures.series.mainRps.length;
  const perSecond = (values: number[]) => values.slice(0, steps);
  const fleetCpu = new Array<number>(steps).fill(0);
  for (const fleet of cost.fleets) {
    fleet.cpuCores.forEach((cores, i) => {
      if (i < steps) fleetCpu[i]! += cores;
    });
  }
  const p99 = figures.toStandby.fromEnable.p99Ms;
  const ratio = figures.main.recoveryPeakRatio;
  const herd = [
    o.strategy === 'B' ? `probeJitterRatio ${result.effectiveFailover.probeJitterRatio}` : '',
    o.strategy === 'A'
      ? `breaker ${result.effectiveFailover.breaker === false ? 'off' : 'on'}`
      : '',
  ]
    .filter(Boolean)
    .join(', ');
  return renderTimelineChart({
    title: `Strategy ${options.strategy}, main ${options.outage}, ${options.clients.toLocaleString('en')} apps, herd controls ${options.herd}${herd ? ` (${herd})` : ''}`,
    subtitle: [
      `call every ${options.callIntervalS} s`,
      `99 % on the standby ${p99 === undefined ? 'not reached' : `${(p99 / 1000).toFixed(1)} s after enabling`}`,
      `main recovery peak ${ratio === undefined ? '-' : `${ratio.toFixed(2)}x`} steady`,
      `lost leases ${figures.leases.lapsedApps}`,
    ].join(' · '),
    stepMs: figures.series.stepMs,
    panels: [
      {
        title: 'requests/s (client side)',
        lines: [
          { label: 'main', color: '#1f77b4', values: figures.series.mainRps },
          { label: 'standby', color: '#ff7f0e', values: figures.series.standbyRps },
        ],
      },
      {
        title: 'apps by who served the lease they hold',
        lines: [
          { label: 'main lease', color: '#1f77b4', values: figures.series.onMain },
          { label: 'standby lease', color: '#ff7f0e', values: figures.series.onStandby },
          {
            label: 'no lease',
            color: '#d62728',
            values: figures.series.withoutLease,
            dashed: true,
          },
        ],
      },
      {
        title: 'CPU, cores (2 on this machine)',
        height: 100,
        lines: [
          { label: 'mock server', color: '#9467bd', values: perSecond(cost.serverCpuCores) },
          { label: 'client fleets', color: '#2ca02c', values: fleetCpu },
          {
            label: 'main gate',
            color: '#8c564b',
            values: perSecond(cost.orchestratorCpuCores),
            dashed: true,
          },
        ],
      },
    ],
    marks: [
      { atMs: marks.rampEndMs, label: 'all apps started' },
      { atMs: marks.breakMs, label: 'main breaks' },
      { atMs: marks.enableMs, label: 'standby enabled' },
      { atMs: marks.recoverMs, label: 'main recovers' },
      { atMs: marks.disableMs, label: 'standby disabled' },
    ],
  });
}

/** Indented JSON with arrays of numbers kept on one line (the series are long). */
function toJson(value: unknown): string {
  return JSON.stringify(value, null, 1).replace(
    /\[\s+(-?[\d.e+-]+(?:,\s+-?[\d.e+-]+)*)\s+\]/g,
    (_, inner: string) => `[${inner.split(/,\s+/).join(',')}]`,
  );
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
    const step = async (atMs: number, what: string, action: () => Promise<void>) => {
      await sleepUntil(epoch, atMs);
      await action();
      log(`+${(now() / 1000).toFixed(1)} s: ${what}`);
      return now();
    };
    marks.breakMs = await step(schedule.breakMs, 'main breaks', actions.breakMain);
    marks.enableMs = await step(schedule.enableMs, 'standby enabled', actions.enableStandby);
    marks.recoverMs = await step(schedule.recoverMs, 'main recovers', actions.recoverMain);
    marks.disableMs = await step(schedule.disableMs, 'standby disabled', actions.disableStandby);
    await sleepUntil(epoch, schedule.endMs);
    marks.endMs = now();
    clearInterval(sampler);
    sampler = undefined;
    const reports = await pool.stop();
    log('fleets stopped; computing the figures');

    const records = mergeFleetRecords(reports.map((r) => r.records));
    const figures = computeDrillFigures({
      records,
      marks,
      clients: options.clients,
      probeIntervalMs: effective.probeIntervalMs,
    });
    const targets = checkTargets(figures, {
      strategy: options.strategy,
      attemptTimeoutMs: effective.attemptTimeoutMs,
      probeIntervalMs: effective.probeIntervalMs,
      breaker: effective.breaker !== false,
    });
    const outDir = resolve(REPO_ROOT, options.outDir);
    const files = { json: join(outDir, `${name}.json`), svg: join(outDir, `${name}.svg`) };
    const cost: DrillResult['cost'] = {
      serverCpuCores,
      serverRunQueueMs,
      orchestratorCpuCores,
      fleets: reports.map((report, i) => fleetCost(report, configs[i]!.apps.length, marks.endMs)),
      mainGateConnections: gate.accepted,
    };
    const result: DrillResult = {
      name,
      startedAt: started.toISOString(),
      options,
      clientFailover: failover,
      effectiveFailover: effective,
      schedule,
      marks,
      figures,
      targets,
      cost,
      harness: summarizeHarnessLoad(cost, marks, cpus().length),
      machine: {
        node: process.version,
        cpus: cpus().length,
        loadAverage1mBefore: loadBefore,
        loadAverage1mAfter: loadavg()[0]!,
      },
      files,
    };
    mkdirSync(outDir, { recursive: true });
    writeFileSync(files.svg, drawChart(result));
    writeFileSync(files.json, `${toJson(result)}\n`);
    if (options.writeRecords) {
      writeFileSync(join(outDir, `${name}.records.json`), JSON.stringify(records));
    }
    return result;
  } finally {
    if (sampler) clearInterval(sampler);
    pool?.kill();
    await gate?.close();
    await server?.close();
  }
}
