/** Whether a higher or a lower figure is better, and so how a target compares. */
export type Direction = 'higher' | 'lower';

/** One line of the benchmark table. */
export interface BenchLine {
  /** Row id, e.g. `1` or `3 refused A`. */
  row: string;
  /** What is measured, e.g. `leases/s (HTTP, keep-alive)`. */
  metric: string;
  /** Our figure. */
  ours: number;
  /** Unit of `ours`, e.g. `/s`, `ms`, `KiB`. */
  unit: string;
  /** The reference measured in the same run, when the row has one. */
  reference?: number;
  /** What the reference is, e.g. `crypto.sign RSA-2048/s (1 core)`. */
  referenceLabel?: string;
  /** `ours / reference`, when both exist. */
  ratio?: number;
  /** The target as text, e.g. `ratio >= 0.75`; absent when the row only reports. */
  target?: string;
  /** Whether the target is met; absent when the row has none. */
  met?: boolean;
  /** Extra figures worth keeping (counts, percentiles, settings). */
  details?: Record<string, number | string>;
}

/** Options every row receives. */
export interface RowContext {
  /** Few iterations, for a CI smoke run. */
  quick: boolean;
  /** Progress output (stderr), so stdout carries only the table. */
  log: (message: string) => void;
}

/** A benchmark row: runs and returns its table lines. */
export interface BenchRow {
  /** Name used by `--only`, e.g. `leases`. */
  name: string;
  /** Row number (1-9, docs/benchmarks.md). */
  id: number;
  title: string;
  run(context: RowContext): Promise<BenchLine[]>;
}
