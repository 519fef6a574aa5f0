// A measured run turned into its results: figures, targets, the harness's load, and the JSON and
// SVG files (also again later, from the JSON and the records a run kept with `--records`).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../bench/child-server.js';
import { computeDrillFigures } from './drill-figures.js';
import type { DrillResult } from './drill-result.js';
import { checkTargets } from './drill-targets.js';
import type { FleetRecords } from './fleet-records.js';
import { summarizeHarnessLoad } from './harness-load.js';
import { renderTimelineChart } from './timeline-chart.js';

/** What a run measured, before any figure is computed from it. */
export type MeasuredRun = Omit<DrillResult, 'figures' | 'targets' | 'harness' | 'files'>;

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
 * Computes a run's figures, targets and harness load from its records, writes `<name>.json` and
 * `<name>.svg` (and `<name>.records.json` when the run asked for it) to its `outDir`, and returns
 * the result.
 *
 * @example
 * const result = writeDrillResults(measured, mergeFleetRecords(reports.map((r) => r.records)));
 */
export function writeDrillResults(measured: MeasuredRun, records: FleetRecords): DrillResult {
  const { options, effectiveFailover: effective, marks } = measured;
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
  const result: DrillResult = {
    ...measured,
    figures,
    targets,
    harness: summarizeHarnessLoad(measured.cost, marks, measured.machine.cpus),
    files: {
      json: join(outDir, `${measured.name}.json`),
      svg: join(outDir, `${measured.name}.svg`),
    },
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(result.files.svg, drawChart(result));
  writeFileSync(result.files.json, `${toJson(result)}\n`);
  if (options.writeRecords) {
    writeFileSync(join(outDir, `${measured.name}.records.json`), JSON.stringify(records));
  }
  return result;
}

/**
 * Recomputes a kept run (`<name>.json` with its `<name>.records.json`, from `--records`) with the
 * current figures, targets and chart, and rewrites its JSON and SVG.
 *
 * @param jsonPath Path of the run's `<name>.json`.
 * @example
 * const result = reanalyzeDrill('test/drill/results/b-3000.json');
 */
export function reanalyzeDrill(jsonPath: string): DrillResult {
  const path = resolve(jsonPath);
  const kept = JSON.parse(readFileSync(path, 'utf8')) as DrillResult;
  const records = JSON.parse(
    readFileSync(path.replace(/\.json$/, '.records.json'), 'utf8'),
  ) as FleetRecords;
  const { figures: _f, targets: _t, harness: _h, files: _files, ...measured } = kept;
  // Written again next to where the run was found; its records file stays as it is.
  const outDir = resolve(path, '..');
  return writeDrillResults(
    { ...measured, options: { ...measured.options, outDir, writeRecords: false } },
    records,
  );
}
