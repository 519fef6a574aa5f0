import type { CheckResult, CheckStatus } from './runner.js';

/** One check in the `--json` report. */
export interface JsonCheck {
  id: string;
  section: string;
  status: CheckStatus;
  /** Why it failed (also for an expected failure) or was skipped. */
  message?: string;
  /** Time the check took, in ms, rounded to 0.1 ms. */
  ms: number;
}

/** The `--json` report: `{ "checks": [...] }` in run order. */
export interface JsonReport {
  checks: JsonCheck[];
}

/**
 * The `--json` report of a run (docs/conformance.md "Reports and exit status").
 *
 * @example
 * await writeFile('conformance.json', `${JSON.stringify(toJsonReport(results), null, 2)}\n`);
 */
export function toJsonReport(results: readonly CheckResult[]): JsonReport {
  return {
    checks: results.map(({ id, section, status, message, ms }) => ({
      id,
      section,
      status,
      ...(message === undefined ? {} : { message }),
      ms: Math.round(ms * 10) / 10,
    })),
  };
}
