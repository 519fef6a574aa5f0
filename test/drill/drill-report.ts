// The drill's report as text: what ran, the figures, the targets and where the results are.
import type { AttemptRate, ShareTimes } from './drill-figures.js';
import type { DrillResult } from './drill-result.js';

const seconds = (ms: number | undefined) =>
  ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`;
const num = (value: number | undefined, digits = 2) =>
  value === undefined ? '-' : String(+value.toFixed(digits));

function shares(s: ShareTimes): string {
  return `50 % ${seconds(s.p50Ms)}, 99 % ${seconds(s.p99Ms)}, 100 % ${seconds(s.p100Ms)} (${s.reached} of ${s.population})`;
}

function attempts(r: AttemptRate, per: string): string {
  return `${num(r.ratio)} (${r.mainRequests} main requests / ${num(r.per, 1)} ${per})`;
}

function counts(table: Record<string, number>): string {
  const entries = Object.entries(table).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k} ${v}`).join(', ');
}

/**
 * Formats a run's result as the report `npm run drill` prints: setup, leases, the move to the
 * standby and back, main's and the standby's load, call errors, what the harness itself cost,
 * and each target as met / NOT MET.
 *
 * @example
 * process.stdout.write(formatDrillReport(await runDrill(options)));
 */
export function formatDrillReport(result: DrillResult): string {
  const { options: o, figures: f, cost } = result;
  const p = o.phases;
  const lines = [
    '',
    `Fleet drill ${result.name}`,
    `  Strategy ${o.strategy}, main ${o.outage}, ${o.clients} apps in ${Math.max(1, o.workers)} ${o.workers === 0 ? 'in-process fleet' : 'worker processes'}, seed ${o.seed}, one call per app every ${o.callIntervalS} s, ${o.restarts} restarts during the outage`,
    `  phases (s): ramp ${p.rampS}, steady ${p.steadyS}, main broken with the standby dormant ${p.detectS}, standby enabled ${p.standbyS}, recovery ${p.recoveryS}, tail ${p.tailS}`,
    `  herd controls ${o.herd}; client failover options ${JSON.stringify(result.clientFailover)}, with the SDK's defaults: ${JSON.stringify(result.effectiveFailover)}`,
    `  load average ${num(result.machine.loadAverage1mBefore)} -> ${num(result.machine.loadAverage1mAfter)} on ${result.machine.cpus} cores`,
    '',
    'Leases',
    `  apps that lost a valid lease:      ${f.leases.lapsedApps} ${Object.keys(f.leases.lapsesByCode).length ? `(${counts(f.leases.lapsesByCode)})` : ''}`,
    `  apps without a lease at the end:   ${f.leases.withoutLeaseAtEnd}`,
    `  restarted apps to their lease:     ${shares(f.leases.restarts)}`,
    'Apps holding a standby lease',
    `  after the standby was enabled:     ${shares(f.toStandby.fromEnable)}`,
    `  after main broke:                  ${shares(f.toStandby.fromBreak)}`,
    'Failback (apps on the standby at recovery)',
    `  back on a main lease:              ${shares(f.failback.holdingMain)}`,
    `  SDK failback event:                ${shares(f.failback.sdkFailbackEvent)}`,
    'Main service',
    `  steady state:                      ${num(f.main.steadyRps, 1)} requests/s (largest second ${f.main.steadyPeakRps})`,
    `  during the outage:                 ${num(f.main.outagePerClientPerMinute.whole)} requests per client per minute (standby dormant ${num(f.main.outagePerClientPerMinute.standbyDormant)}, standby enabled ${num(f.main.outagePerClientPerMinute.standbyEnabled)})`,
    `  recovery peak:                     ${f.main.recoveryPeakRps} requests/s, ${seconds(f.main.recoveryPeakAtMs)} after recovery = ${num(f.main.recoveryPeakRatio)}x steady`,
    `  clients on the standby, per probe interval: ${attempts(f.main.whileOnStandby, 'client-probe-intervals')}; probes ${f.main.whileOnStandby.probes}, /authz ${f.main.whileOnStandby.authz}`,
    `  per call with the breaker open:    ${attempts(f.main.perCallBreakerOpen, 'calls')}`,
    `  per call on the standby (outage):  ${attempts(f.main.perCallOnStandby, 'calls')}`,
    'Standby service',
    `  peak ${f.standby.peakRps} requests/s at ${seconds(f.standby.peakAtMs)}, ${f.standby.requests} requests`,
    'Calls',
    `  ${f.calls.total} calls, ${f.calls.failed} failed`,
    ...Object.entries(f.calls.errorsByPhase).map(
      ([phase, codes]) => `  errors, ${phase}: ${counts(codes)}`,
    ),
    ...Object.entries(f.calls.durationByPhase).map(
      ([phase, d]) =>
        `  duration, ${phase}: p50 ${num(d.p50Ms, 1)} ms, p99 ${num(d.p99Ms, 1)} ms (${d.calls} calls)`,
    ),
    ...Object.entries(f.requestOutcomes).map(
      ([service, outcomes]) => `  ${service} requests: ${counts(outcomes)}`,
    ),
    'Harness load (cores: mean / peak; fleets summed)',
    ...Object.entries(result.harness.phases).map(
      ([phase, h]) =>
        `  ${phase.padEnd(9)} fleets ${num(h.fleetCpuMean)} / ${num(h.fleetCpuPeak)}, mock server ${num(h.serverCpuMean)} / ${num(h.serverCpuPeak)}, main gate ${num(h.gateCpuMean)}, fleet event-loop delay max ${Math.round(h.fleetEldMaxMs)} ms, waiting for a CPU ${h.fleetRunQueueMsPerS} / ${h.serverRunQueueMsPerS} ms/s (fleet / server)`,
    ),
    `  fleets: RSS ${cost.fleets.map((fl) => fl.peakRssMiB).join(' / ')} MiB, connections opened ${cost.fleets.map((fl) => Object.values(fl.connections).reduce((a, b) => a + b, 0)).join(' / ')}, skipped call ticks ${cost.fleets.reduce((a, fl) => a + fl.skippedCalls, 0)}; main gate accepted ${cost.mainGateConnections} connections`,
    ...result.harness.warnings.map((w) => `  WARNING ${w}`),
    '',
    'Targets',
    ...result.targets.map(
      (t) =>
        `  ${t.met ? '[met]    ' : '[NOT MET]'} ${t.name}: ${num(t.value)} (target ${t.target})${t.note ? `; ${t.note}` : ''}`,
    ),
    '',
    `Results: ${result.files.json}`,
    `         ${result.files.svg}`,
    '',
  ];
  return lines.join('\n');
}
