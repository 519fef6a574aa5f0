import { describe, expect, it } from 'vitest';
import type { PhaseMarks } from './drill-figures.js';
import { summarizeHarnessLoad } from './harness-load.js';

const marks: PhaseMarks = {
  rampEndMs: 2000,
  breakMs: 4000,
  enableMs: 5000,
  recoverMs: 7000,
  disableMs: 8000,
  endMs: 9000,
};

describe('summarizeHarnessLoad', () => {
  it('sums the processes per phase and warns of stalls, starvation and saturation', () => {
    const { phases, warnings } = summarizeHarnessLoad(
      {
        serverCpuCores: [0.1, 0.1, 0.2, 0.2, 0.5, 0.9, 0.9, 0.1, 0.1],
        serverRunQueueMs: [0, 0, 0, 0, 0, 100, 100, 0, 0],
        orchestratorCpuCores: [0, 0, 0.1, 0.1, 0.1, 0.1, 0.1, 0, 0],
        fleets: [
          {
            cpuCores: [1, 1, 0.2, 0.4, 0.6, 0.5, 0.5, 0.2, 0.2],
            eldMaxMs: [50, 60, 10, 20, 30, 1500, 200, 10, 10],
            runQueueMs: [0, 0, 0, 0, 0, 600, 400, 0, 0],
          },
          {
            cpuCores: [0.5, 0.5, 0.2, 0.2, 0.4, 0.6, 0.6, 0.2, 0.2],
            eldMaxMs: [40, 40, 10, 10, 30, 900, 1200, 10, 10],
            runQueueMs: [0, 0, 0, 0, 0, 200, 200, 0, 0],
          },
        ],
      },
      marks,
      2,
    );
    expect(phases.ramp).toMatchObject({
      seconds: 2,
      fleetCpuMean: 1.5,
      fleetCpuPeak: 1.5,
      serverCpuMean: 0.1,
    });
    expect(phases.steady).toMatchObject({
      seconds: 2,
      fleetCpuMean: 0.5,
      fleetCpuPeak: 0.6,
      gateCpuMean: 0.1,
    });
    expect(phases.standby).toMatchObject({
      seconds: 2,
      fleetCpuMean: 1.1,
      serverCpuPeak: 0.9,
      fleetEldMaxMs: 1500,
      fleetRunQueueMsPerS: 350,
      serverRunQueueMsPerS: 100,
    });
    expect(warnings).toEqual([
      "standby: a client fleet's event loop stalled for 1500 ms; client-side timings of this phase include the harness's own queueing",
      "standby: the drill's processes waited 350 ms per second for a CPU; other work on the machine starved them",
      "standby: the drill's processes used 2.10 of 2 cores on average; the machine was saturated",
    ]);
  });
});
