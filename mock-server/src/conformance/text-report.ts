import type { CheckResult, CheckStatus } from './runner.js';

const MARK: Record<CheckStatus, string> = {
  passed: 'PASS ',
  failed: 'FAIL ',
  skipped: 'SKIP ',
  'expected-failure': 'XFAIL',
};

/**
 * The console report: one block per section, one line per check (mark, id, rule, and the
 * message under it), then the totals line.
 *
 * @example
 * process.stdout.write(`${formatReport(results)}\n`);
 */
export function formatReport(results: readonly CheckResult[]): string {
  const lines: string[] = [];
  let section = '';
  for (const result of results) {
    if (result.section !== section) {
      section = result.section;
      lines.push('', section);
    }
    lines.push(`  ${MARK[result.status]}  ${result.id}: ${result.rule}`);
    if (result.message) lines.push(`           ${result.message}`);
  }
  lines.push('', formatTotals(results));
  return lines.join('\n');
}

/** `conformance: 30 passed, 0 failed, 2 skipped, 0 expected failures`. */
export function formatTotals(results: readonly CheckResult[]): string {
  const count = (status: CheckStatus) => results.filter((r) => r.status === status).length;
  return (
    `conformance: ${count('passed')} passed, ${count('failed')} failed, ` +
    `${count('skipped')} skipped, ${count('expected-failure')} expected failures`
  );
}
