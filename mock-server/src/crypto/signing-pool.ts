import { createSign, type KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { JWS_HASH, jwsSigningInput } from './jws.js';

/** The worker module (plain JavaScript, loaded by Node as is in every worker thread). */
const WORKER_URL = new URL('./sign-worker.mjs', import.meta.url).href;

/** Most worker threads a pool accepts. */
export const MAX_SIGNING_THREADS = 256;

/** Most `signTokens` calls one worker task carries. */
const MAX_BATCH = 8;

/**
 * Tasks each worker holds at once: while it signs one, the next waits in its queue, so it goes on
 * signing while the answers of the last one travel back and new requests arrive.
 */
const TASKS_PER_WORKER = 2;

/**
 * Calls one worker thread holds at once (its tasks, full): what a load must exceed per thread
 * for requests to wait for the pool rather than the pool for requests (bench row 1).
 */
export const CALLS_HELD_PER_THREAD = MAX_BATCH * TASKS_PER_WORKER;

/** What a worker receives per task (see `sign-worker.mjs`): a batch of jobs. */
interface SignTask {
  keys: KeyObject[];
  jobs: { key: number; hash: string; inputs: string[] }[];
}

/** One `signTokens` call waiting for its signatures. */
interface Job {
  key: KeyObject;
  hash: string;
  inputs: string[];
  resolve(signatures: string[]): void;
  reject(error: unknown): void;
}

/** Options of {@link createSigningPool}. */
export interface SigningPoolOptions {
  /**
   * Worker threads that sign; `0` signs on the calling thread (no pool). Integer from 0 to
   * {@link MAX_SIGNING_THREADS}. Default {@link defaultSigningThreads}.
   */
  threads?: number;
}

/** Signs JWS tokens with RSA keys, on worker threads or inline. */
export interface SigningPool {
  /** Worker threads of the pool; `0` when it signs on the calling thread. */
  readonly threads: number;
  /** Signing calls waiting for a worker thread now (the pool's queue; 0 when inline). */
  readonly queued: number;
  /**
   * Signs one compact JWS per payload, all with `header` and `privateKey`, and resolves them in
   * the order of `payloads`. The key travels with the task (a KeyObject clone shares the native
   * key), so a key created a moment ago signs at once on every thread. Rejects once the pool is
   * closed.
   */
  signTokens(
    header: Record<string, unknown>,
    payloads: readonly unknown[],
    privateKey: KeyObject,
  ): Promise<string[]>;
  /**
   * Starts the worker threads now (they otherwise start with the first call, so a server that
   * signs nothing never pays for them); resolves once the pool takes tasks. Idempotent.
   */
  start(): Promise<void>;
  /** Ends the worker threads (waiting calls reject); resolves once every thread has exited. */
  close(): Promise<void>;
}

/**
 * The default thread count: one worker per available core ({@link availableParallelism}), or 0
 * (inline signing) on a single core, where a worker adds a hop and no parallelism.
 */
export function defaultSigningThreads(): number {
  const cores = availableParallelism();
  return cores > 1 ? cores : 0;
}

/**
 * The thread count for `value`: {@link defaultSigningThreads} when undefined, else `value` if it
 * is an integer from 0 to {@link MAX_SIGNING_THREADS}; otherwise a TypeError naming `name`.
 *
 * @example
 * resolveSigningThreads(undefined); // 2 on a 2-core machine
 */
export function resolveSigningThreads(value: number | undefined, name = 'threads'): number {
  if (value === undefined) return defaultSigningThreads();
  if (!Number.isInteger(value) || value < 0 || value > MAX_SIGNING_THREADS) {
    throw new TypeError(`${name} must be an integer from 0 to ${MAX_SIGNING_THREADS}`);
  }
  return value;
}

function signInline(key: KeyObject, hash: string, inputs: readonly string[]): string[] {
  return inputs.map((input) => createSign(hash).update(input).sign(key, 'base64url'));
}

function closedError(): Error {
  return new Error('The signing pool is closed');
}

/**
 * Creates a pool of `threads` worker threads (piscina) that sign RSA JWS tokens, so lease signing
 * leaves the event loop and uses every core. piscina is loaded and the threads start with the
 * first call or `start()`, off the server's start path; close the pool with the server. With
 * `threads: 0` it signs on the calling thread and starts nothing.
 *
 * Calls are batched: each worker holds at most two tasks (one signing, one queued behind it), and
 * the calls that arrive meanwhile (or within one turn of the event loop) go to the free slots
 * together, split evenly, at most 8 per task. A hand-off between threads costs about as much as a
 * fifth of a signature on a small VM, so under load it is paid per batch rather than per lease;
 * the queued task keeps a worker signing while its last answers go out. An idle server still
 * answers a lone call within the same turn.
 *
 * @example
 * const pool = createSigningPool({ threads: 2 });
 * const [token] = await pool.signTokens({ alg: 'RS256', kid }, [{ sub: 'u1' }], privateKey);
 * await pool.close();
 */
export function createSigningPool(options: SigningPoolOptions = {}): SigningPool {
  const threads = resolveSigningThreads(options.threads);
  let piscina: Piscina<SignTask, string[][]> | undefined;
  let starting: Promise<void> | undefined;
  const pending: Job[] = [];
  let inFlight = 0;
  let scheduled = false;
  let closed: Promise<void> | undefined;
  const start = (): Promise<void> => {
    if (threads === 0) return Promise.resolve();
    starting ??= import('piscina').then(({ Piscina }) => {
      if (closed) return;
      piscina = new Piscina<SignTask, string[][]>({
        filename: WORKER_URL,
        minThreads: threads,
        maxThreads: threads,
        // Per-task timing histograms cost time on every task and nobody reads them.
        recordTiming: false,
        concurrentTasksPerWorker: TASKS_PER_WORKER,
        // The worker is plain JavaScript importing node:crypto only: it needs none of this
        // process's flags, and a loader such as tsx (`--import tsx` when running from the
        // sources) would double its start-up time and memory (measured: 170-210 ms and
        // +28-32 MiB for two threads, against 70-110 ms and +18 MiB).
        execArgv: [],
      });
      pump();
    });
    return starting;
  };

  const dispatch = (batch: Job[]) => {
    const keys: KeyObject[] = [];
    const jobs = batch.map((job) => {
      let key = keys.indexOf(job.key);
      if (key < 0) key = keys.push(job.key) - 1;
      return { key, hash: job.hash, inputs: job.inputs };
    });
    inFlight++;
    piscina!.run({ keys, jobs }).then(
      (results) => {
        inFlight--;
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]!);
        pump();
      },
      (error: unknown) => {
        inFlight--;
        for (const job of batch) job.reject(error);
        pump();
      },
    );
  };
  const pump = () => {
    scheduled = false;
    const slots = threads * TASKS_PER_WORKER;
    if (piscina === undefined) return;
    while (closed === undefined && inFlight < slots && pending.length > 0) {
      const size = Math.min(MAX_BATCH, Math.ceil(pending.length / (slots - inFlight)));
      dispatch(pending.splice(0, size));
    }
  };
  const enqueue = (key: KeyObject, hash: string, inputs: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      if (closed) return reject(closedError());
      pending.push({ key, hash, inputs, resolve, reject });
      if (piscina === undefined) {
        // The first call starts the threads; it and the calls meanwhile go once they run.
        start().catch((error: unknown) => {
          for (const job of pending.splice(0)) job.reject(error);
        });
        return;
      }
      // After the I/O callbacks of this turn: requests that arrived together leave together.
      if (!scheduled) {
        scheduled = true;
        setImmediate(pump);
      }
    });

  return {
    threads,
    get queued() {
      return pending.length;
    },
    async signTokens(header, payloads, privateKey) {
      if (closed) throw closedError();
      const parts = payloads.map((payload) => jwsSigningInput(header, payload));
      if (parts.length === 0) return [];
      const inputs = parts.map((part) => part.input);
      const hash = JWS_HASH[parts[0]!.alg];
      const signatures =
        threads > 0
          ? await enqueue(privateKey, hash, inputs)
          : signInline(privateKey, hash, inputs);
      return inputs.map((input, i) => `${input}.${signatures[i]}`);
    },
    start,
    close() {
      if (!closed) {
        for (const job of pending.splice(0)) job.reject(closedError());
        // A start under way creates nothing once `closed` is set.
        closed = (starting ?? Promise.resolve())
          .catch(() => undefined)
          .then(() => piscina?.destroy());
      }
      return closed;
    },
  };
}
