// The parent side of the fleet workers: forks one process per fleet (or runs a fleet in this
// process), starts them on one shared epoch and gathers their reports.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../bench/child-server.js';
import { createFleet, type FleetConfig, type FleetProgress, type FleetReport } from './fleet.js';
import type { FleetCommand, FleetMessage } from './fleet-process.js';

/** The fleets of a run (see {@link startFleetPool}). */
export interface FleetPool {
  /** Starts every fleet's schedule on the same epoch (ms since 1970). */
  begin(epochMs: number): void;
  /** Where the apps stand, summed over the fleets. */
  progress(): Promise<FleetProgress>;
  /** Stops every fleet and returns their reports. */
  stop(): Promise<FleetReport[]>;
  /** Kills worker processes that are still running (after a failure). */
  kill(): void;
}

const WORKER_ENTRY = fileURLToPath(new URL('./fleet-process.ts', import.meta.url));
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** One forked fleet worker and a way to wait for its next message of a type. */
class WorkerHandle {
  readonly child: ChildProcess;
  #failure: Error | undefined;
  #waiters = new Set<{
    type: string;
    resolve: (m: FleetMessage) => void;
    reject: (e: Error) => void;
  }>();

  constructor() {
    this.child = fork(WORKER_ENTRY, [], {
      cwd: REPO_ROOT,
      // A larger young generation: the fleet allocates a little per request for thousands of
      // clients; this took GC from 16 % to 11 % of a 1000-client run's CPU (CPU profiles).
      execArgv: ['--import', 'tsx', '--max-semi-space-size=64'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    live.add(this.child);
    this.child.on('message', (message: FleetMessage) => {
      if (message.type === 'error') this.#fail(new Error(`fleet worker: ${message.message}`));
      for (const waiter of this.#waiters) {
        if (waiter.type === message.type) {
          this.#waiters.delete(waiter);
          waiter.resolve(message);
        }
      }
    });
    this.child.once('exit', (code, signal) => {
      live.delete(this.child);
      this.#fail(new Error(`fleet worker exited (${code ?? signal})`));
    });
  }

  #fail(error: Error) {
    this.#failure ??= error;
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters.clear();
  }

  send(command: FleetCommand) {
    if (this.child.connected) this.child.send(command);
  }

  next<T extends FleetMessage['type']>(type: T): Promise<Extract<FleetMessage, { type: T }>> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiters.add({ type, resolve: resolve as (m: FleetMessage) => void, reject });
    });
  }
}

/**
 * Starts one fleet per config: in forked worker processes (`fleet-process.ts` under tsx, IPC
 * with structured clone), or, with `inProcess`, in this process (the smoke test's light mode).
 * Resolves once every fleet has created its clients.
 *
 * @example
 * const pool = await startFleetPool(configs, { inProcess: false });
 * pool.begin(Date.now() + 500);
 * const reports = await pool.stop();
 */
export async function startFleetPool(
  configs: readonly FleetConfig[],
  { inProcess }: { inProcess: boolean },
): Promise<FleetPool> {
  if (inProcess) {
    const fleets = configs.map((config) => createFleet(config));
    return {
      begin: (epochMs) => {
        for (const fleet of fleets) fleet.begin(epochMs);
      },
      progress: async () => sumProgress(fleets.map((fleet) => fleet.progress())),
      stop: () => Promise.all(fleets.map((fleet) => fleet.stop())),
      kill() {},
    };
  }
  const workers = configs.map(() => new WorkerHandle());
  try {
    await Promise.all(
      workers.map((worker, i) => {
        const ready = worker.next('ready');
        worker.send({ type: 'init', config: configs[i]! });
        return ready;
      }),
    );
  } catch (error) {
    for (const worker of workers) worker.child.kill('SIGKILL');
    throw error;
  }
  return {
    begin(epochMs) {
      for (const worker of workers) worker.send({ type: 'begin', epochMs });
    },
    async progress() {
      const answers = await Promise.all(
        workers.map((worker) => {
          const answer = worker.next('progress');
          worker.send({ type: 'progress' });
          return answer;
        }),
      );
      return sumProgress(answers.map((answer) => answer.progress));
    },
    async stop() {
      const reports = await Promise.all(
        workers.map(async (worker) => {
          const answer = worker.next('report');
          worker.send({ type: 'stop' });
          return (await answer).report;
        }),
      );
      for (const worker of workers) worker.child.disconnect();
      return reports;
    },
    kill() {
      for (const worker of workers) worker.child.kill('SIGKILL');
    },
  };
}

function sumProgress(parts: readonly FleetProgress[]): FleetProgress {
  const sum: FleetProgress = { apps: 0, onMain: 0, onStandby: 0, withoutLease: 0, busy: 0 };
  for (const part of parts) {
    for (const key of Object.keys(sum) as Array<keyof FleetProgress>) sum[key] += part[key];
  }
  return sum;
}
