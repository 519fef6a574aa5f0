// What the harness itself used, phase by phase, and whether it was saturated: a stalled client
// event loop shows up in every client-side timing, so the report says when that happened.
import { type PhaseMarks, phaseAt } from './drill-figures.js';

/** Per-second load of the processes of a run (one value per second from its start). */
export interface HarnessSeries {
  serverCpuCores: readonly number[];
  orchestratorCpuCores: readonly number[];
  fleets: ReadonlyArray<{ cpuCores: readonly number[]; eldMaxMs: readonly number[] }>;
}

/** One phase's load: mean and peak cores, and the fleets' largest event-loop delay. */
export interface PhaseLoad {
  seconds: number;
  fleetCpuMean: number;
  fleetCpuPeak: number;
  serverCpuMean: number;
  serverCpuPeak: number;
  gateCpuMean: number;
  fleetEldMaxMs: number;
}

/** A fleet event-loop delay above this (ms) makes client-side timings of the phase suspect. */
export const ELD_WARNING_MS = 1000;
/** Cores in use above which the machine counts as saturated (of `cores`). */
const SATURATED_SHARE = 0.9;

/**
 * Sums the load of the run's processes per phase and lists warnings for phases where a fleet's
 * event loop stalled for more than {@link ELD_WARNING_MS} or the processes together used more
 * than 90 % of the machine's cores on average.
 *
 * @example
 * const { phases, warnings } = summarizeHarnessLoad(result.cost, result.marks, 2);
 */
export function summarizeHarnessLoad(
  series: HarnessSeries,
  marks: PhaseMarks,
  cores: number,
): { phases: Record<string, PhaseLoad>; warnings: string[] } {
  const steps = Math.ceil(marks.endMs / 1000);
  const phases: Record<string, PhaseLoad> = {};
  for (let second = 0; second < steps; second++) {
    const phase = phaseAt(marks, second * 1000 + 500);
    const load = phases[phase] ?? {
      seconds: 0,
      fleetCpuMean: 0,
      fleetCpuPeak: 0,
      serverCpuMean: 0,
      serverCpuPeak: 0,
      gateCpuMean: 0,
      fleetEldMaxMs: 0,
    };
    phases[phase] = load;
    const fleetCpu = series.fleets.reduce((sum, fleet) => sum + (fleet.cpuCores[second] ?? 0), 0);
    const serverCpu = series.serverCpuCores[second] ?? 0;
    load.seconds++;
    load.fleetCpuMean += fleetCpu;
    load.fleetCpuPeak = Math.max(load.fleetCpuPeak, fleetCpu);
    load.serverCpuMean += serverCpu;
    load.serverCpuPeak = Math.max(load.serverCpuPeak, serverCpu);
    load.gateCpuMean += series.orchestratorCpuCores[second] ?? 0;
    for (const fleet of series.fleets) {
      load.fleetEldMaxMs = Math.max(load.fleetEldMaxMs, fleet.eldMaxMs[second] ?? 0);
    }
  }
  const warnings: string[] = [];
  for (const [phase, load] of Object.entries(phases)) {
    load.fleetCpuMean = +(load.fleetCpuMean / load.seconds).toFixed(3);
    load.fleetCpuPeak = +load.fleetCpuPeak.toFixed(3);
    load.serverCpuPeak = +load.serverCpuPeak.toFixed(3);
    load.serverCpuMean = +(load.serverCpuMean / load.seconds).toFixed(3);
    load.gateCpuMean = +(load.gateCpuMean / load.seconds).toFixed(3);
    if (load.fleetEldMaxMs > ELD_WARNING_MS) {
      warnings.push(
        `${phase}: a client fleet's event loop stalled for ${Math.round(load.fleetEldMaxMs)} ms; client-side timings of this phase include the harness's own queueing`,
      );
    }
    const used = load.fleetCpuMean + load.serverCpuMean + load.gateCpuMean;
    if (used > SATURATED_SHARE * cores) {
      warnings.push(
        `${phase}: the drill's processes used ${used.toFixed(2)} of ${cores} cores on average; the machine was saturated`,
      );
    }
  }
  return { phases, warnings };
}
