// What the harness itself used, phase by phase, and whether it was saturated: a stalled client
// event loop shows up in every client-side timing, so the report says when that happened.
import { type PhaseMarks, phaseAt } from './drill-figures.js';

/** Per-second load of the processes of a run (one value per second from its start). */
export interface HarnessSeries {
  serverCpuCores: readonly number[];
  serverRunQueueMs: readonly number[];
  orchestratorCpuCores: readonly number[];
  fleets: ReadonlyArray<{
    cpuCores: readonly number[];
    eldMaxMs: readonly number[];
    runQueueMs: readonly number[];
  }>;
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
  /**
   * Time the fleets' and the server's main threads waited for a CPU, ms per second (mean over the
   * phase, fleets averaged): high when other work on the machine starved the drill.
   */
  fleetRunQueueMsPerS: number;
  serverRunQueueMsPerS: number;
}

/** A fleet event-loop delay above this (ms) makes client-side timings of the phase suspect. */
export const ELD_WARNING_MS = 1000;
/** Run-queue wait (ms per second) above which a process counts as starved of CPU. */
export const STARVED_MS_PER_S = 250;
/** Cores in use above which the machine counts as saturated (of `cores`). */
const SATURATED_SHARE = 0.9;

/**
 * Sums the load of the run's processes per phase and lists warnings for phases where a fleet's
 * event loop stalled for more than {@link ELD_WARNING_MS}, a process waited more than
 * {@link STARVED_MS_PER_S} per second for a CPU (starved by other work), or the processes
 * together used more than 90 % of the machine's cores on average.
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
      fleetRunQueueMsPerS: 0,
      serverRunQueueMsPerS: 0,
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
      load.fleetRunQueueMsPerS += (fleet.runQueueMs[second] ?? 0) / series.fleets.length;
    }
    load.serverRunQueueMsPerS += series.serverRunQueueMs[second] ?? 0;
  }
  const warnings: string[] = [];
  for (const [phase, load] of Object.entries(phases)) {
    load.fleetCpuMean = +(load.fleetCpuMean / load.seconds).toFixed(3);
    load.fleetCpuPeak = +load.fleetCpuPeak.toFixed(3);
    load.serverCpuPeak = +load.serverCpuPeak.toFixed(3);
    load.serverCpuMean = +(load.serverCpuMean / load.seconds).toFixed(3);
    load.gateCpuMean = +(load.gateCpuMean / load.seconds).toFixed(3);
    load.fleetRunQueueMsPerS = Math.round(load.fleetRunQueueMsPerS / load.seconds);
    load.serverRunQueueMsPerS = Math.round(load.serverRunQueueMsPerS / load.seconds);
    if (load.fleetEldMaxMs > ELD_WARNING_MS) {
      warnings.push(
        `${phase}: a client fleet's event loop stalled for ${Math.round(load.fleetEldMaxMs)} ms; client-side timings of this phase include the harness's own queueing`,
      );
    }
    const starved = Math.max(load.fleetRunQueueMsPerS, load.serverRunQueueMsPerS);
    if (starved > STARVED_MS_PER_S) {
      warnings.push(
        `${phase}: the drill's processes waited ${starved} ms per second for a CPU; other work on the machine starved them`,
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
