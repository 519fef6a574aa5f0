// The shape of a drill run's result (its JSON file), shared by the run and its analysis.
import type { BreakerOptions, FailoverOptions } from '@standby-licensing/sdk';
import type { DrillFigures, PhaseMarks } from './drill-figures.js';
import type { DrillOptions } from './drill-options.js';
import type { DrillSchedule } from './drill-schedule.js';
import type { TargetCheck } from './drill-targets.js';
import type { summarizeHarnessLoad } from './harness-load.js';

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
