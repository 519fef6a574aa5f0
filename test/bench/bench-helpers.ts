import type { BenchLine } from './bench-result.js';

/**
 * The `p`-th percentile (0-100) of `values` by linear interpolation between closest ranks
 * (the "R-7" rule of spreadsheets and numpy). Does not modify `values`; NaN when empty.
 *
 * @example
 * percentile([1, 2, 3, 4], 50); // 2.5
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** Mean, median, p99, min and max of samples. */
export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
}

/**
 * Summarises samples (e.g. latencies in ms).
 *
 * @example
 * summarize([3, 1, 2]).p50; // 2
 */
export function summarize(values: readonly number[]): Summary {
  const n = values.length;
  const mean = n === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / n;
  return {
    n,
    mean,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    min: n === 0 ? Number.NaN : Math.min(...values),
    max: n === 0 ? Number.NaN : Math.max(...values),
  };
}

/** `ours / reference`, or undefined when either is missing or the reference is not positive. */
export function ratioOf(ours: number, reference: number | undefined): number | undefined {
  if (reference === undefined || !(reference > 0) || !Number.isFinite(ours)) return undefined;
  return ours / reference;
}

/**
 * Formats a figure for the table: three significant digits (whole numbers from 100 up, with
 * thousands separated by commas), never an exponent.
 *
 * @example
 * formatNumber(1234.5); // '1,235'
 * formatNumber(0.01234); // '0.0123'
 */
export function formatNumber(value: number | undefined): string {
  if (value === undefined) return '-';
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toLocaleString('en-US');
  if (abs === 0) return '0';
  const digits = Math.max(0, 2 - Math.floor(Math.log10(abs)));
  return value.toFixed(digits);
}

const HEADERS = ['row', 'metric', 'ours', 'reference', 'ratio', 'target', 'met'] as const;

/**
 * Renders lines as one plain-text table (aligned columns, a rule under the header).
 *
 * @example
 * console.log(formatTable([{ row: '1', metric: 'leases/s', ours: 900, unit: '/s' }]));
 */
export function formatTable(lines: readonly BenchLine[]): string {
  const cells = lines.map((line) => [
    line.row,
    line.metric,
    `${formatNumber(line.ours)} ${line.unit}`.trim(),
    line.reference === undefined
      ? '-'
      : `${formatNumber(line.reference)} ${line.unit}${line.referenceLabel ? ` (${line.referenceLabel})` : ''}`,
    line.ratio === undefined ? '-' : formatNumber(line.ratio),
    line.target ?? '-',
    line.met === undefined ? '-' : line.met ? 'yes' : 'NO',
  ]);
  const widths = HEADERS.map((header, i) =>
    Math.max(header.length, ...cells.map((row) => row[i]!.length)),
  );
  const render = (row: readonly string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [render(HEADERS), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(render)].join(
    '\n',
  );
}

/** Parsed command line of the harness. */
export interface BenchArgs {
  quick: boolean;
  /** Row names or numbers to run; empty means every row. */
  only: string[];
}

/**
 * Parses `--quick` and `--only <row>` (repeatable, or comma-separated).
 *
 * @example
 * parseBenchArgs(['--quick', '--only', 'leases,2']); // { quick: true, only: ['leases', '2'] }
 */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = { quick: false, only: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') args.quick = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      if (!value) throw new TypeError('--only needs a row name or number');
      args.only.push(...value.split(',').filter(Boolean));
    } else throw new TypeError(`Unknown argument ${arg}`);
  }
  return args;
}

/** Operations counted over a timed run, with wall-clock and CPU time. */
export interface Measured {
  ops: number;
  wallMs: number;
  /** CPU time (user + system) the measured process spent, in ms. */
  cpuMs: number;
}

/** Operations per wall-clock second of a measurement. */
export function perWallSecond(m: Measured): number {
  return (m.ops / m.wallMs) * 1000;
}

/**
 * Operations per CPU second of a measurement: what one fully available core would do. On a
 * machine shared with other work, this is the figure that stays comparable between processes.
 */
export function perCpuSecond(m: Measured): number {
  return (m.ops / m.cpuMs) * 1000;
}

function cpuNowMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Runs `fn` repeatedly for about `durationMs` (after `warmupMs` of untimed runs) on this thread,
 * counting wall-clock and this process's CPU time. For synchronous work such as raw signatures.
 */
export function measureSync(fn: () => void, durationMs: number, warmupMs = 200): Measured {
  const warmEnd = performance.now() + warmupMs;
  while (performance.now() < warmEnd) fn();
  let ops = 0;
  const cpuStart = cpuNowMs();
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < 8; i++) fn();
    ops += 8;
    elapsed = performance.now() - start;
  } while (elapsed < durationMs);
  return { ops, wallMs: elapsed, cpuMs: cpuNowMs() - cpuStart };
}

/**
 * The asynchronous variant of {@link measureSync}: `concurrency` loops, each with one operation
 * in flight at a time.
 */
export async function measureAsync(
  fn: () => Promise<unknown>,
  durationMs: number,
  { warmupMs = 200, concurrency = 1 }: { warmupMs?: number; concurrency?: number } = {},
): Promise<Measured> {
  const warmEnd = performance.now() + warmupMs;
  while (performance.now() < warmEnd) await fn();
  let ops = 0;
  const cpuStart = cpuNowMs();
  const start = performance.now();
  const end = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await fn();
        ops++;
      }
    }),
  );
  return { ops, wallMs: performance.now() - start, cpuMs: cpuNowMs() - cpuStart };
}

/** One timed slice of an operation: runs it for about `durationMs` and says what it did. */
export type Slice = (durationMs: number) => Measured | Promise<Measured>;

/** What {@link measureAlternating} returns: each operation's slices summed. */
export interface Alternated {
  a: Measured;
  b: Measured;
  /** Per round, b's rate over a's (the spread of the ratio across the run). */
  roundRatios: number[];
}

/**
 * Measures two operations in alternating slices, `a b`, then `b a`, and so on for `rounds`
 * rounds, and sums each one's slices. Run back to back in two long windows, a ratio also measures
 * how the machine's speed drifted between them (on this repo's VM, raw RSA verification moved
 * between 29 000 and 43 000/s from one 400 ms window to the next); alternating makes the drift
 * weigh on both alike.
 */
export async function measureAlternating(
  a: Slice,
  b: Slice,
  { rounds, sliceMs }: { rounds: number; sliceMs: number },
): Promise<Alternated> {
  const sum = (into: Measured, m: Measured) => {
    into.ops += m.ops;
    into.wallMs += m.wallMs;
    into.cpuMs += m.cpuMs;
  };
  const totalA: Measured = { ops: 0, wallMs: 0, cpuMs: 0 };
  const totalB: Measured = { ops: 0, wallMs: 0, cpuMs: 0 };
  const roundRatios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let ma: Measured;
    let mb: Measured;
    if (round % 2 === 0) {
      ma = await a(sliceMs);
      mb = await b(sliceMs);
    } else {
      mb = await b(sliceMs);
      ma = await a(sliceMs);
    }
    sum(totalA, ma);
    sum(totalB, mb);
    roundRatios.push(perWallSecond(mb) / perWallSecond(ma));
  }
  return { a: totalA, b: totalB, roundRatios };
}
