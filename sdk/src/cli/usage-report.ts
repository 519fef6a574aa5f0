import type { StandbyUsageRow } from '../events/summarize-standby-usage.js';

/** How `standby-licensing usage` prints its rows. */
export type UsageFormat = 'table' | 'csv' | 'json';

/** Every {@link UsageFormat}, in the order the usage text lists them. */
export const USAGE_FORMATS: readonly UsageFormat[] = ['table', 'csv', 'json'];

/** The columns, in the order DECISIONS names the row's fields. */
const COLUMNS = [
  'consumer',
  'item',
  'granted',
  'renewed',
  'released',
  'firstGrant',
  'lastExp',
  'leaseHours',
  'devices',
  'graceGrants',
] as const;

type Column = (typeof COLUMNS)[number];

/** A row's value as text: dates in ISO 8601 (UTC), lease hours to two places. */
function cell(row: StandbyUsageRow, column: Column): string {
  const value = row[column];
  if (value === null) return '';
  if (value instanceof Date) return value.toISOString();
  if (column === 'leaseHours') return (value as number).toFixed(2);
  return String(value);
}

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(text: string): string {
  // A leading =, +, - or @ would be a formula to a spreadsheet: quote and prefix it (OWASP).
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * The rows as JSON: the row objects, dates as ISO 8601 strings (null when none), lease hours to
 * four places (a third of a second: no float noise such as 2.0000980555348926).
 */
function toJson(rows: readonly StandbyUsageRow[]): string {
  return `${JSON.stringify(
    rows.map((row) => ({
      ...row,
      firstGrant: row.firstGrant?.toISOString() ?? null,
      lastExp: row.lastExp?.toISOString() ?? null,
      leaseHours: Math.round(row.leaseHours * 10_000) / 10_000,
    })),
    null,
    2,
  )}\n`;
}

/** `1 consumer`, `3 consumers`: the distinct consumers of `rows`. */
function consumerCount(rows: readonly StandbyUsageRow[]): string {
  const count = new Set(rows.map((row) => row.consumer)).size;
  return `${count} consumer${count === 1 ? '' : 's'}`;
}

/** An aligned text table, numbers right-aligned, with a totals line when there are rows. */
function toTable(rows: readonly StandbyUsageRow[]): string {
  if (rows.length === 0) return 'No standby lease events in this window.\n';
  const numeric = new Set<Column>([
    'granted',
    'renewed',
    'released',
    'leaseHours',
    'devices',
    'graceGrants',
  ]);
  const body = rows.map((row) =>
    COLUMNS.map((column) =>
      column === 'item' && row.item === '' ? '(unknown)' : cell(row, column),
    ),
  );
  const sum = (pick: (row: StandbyUsageRow) => number) =>
    rows.reduce((total, row) => total + pick(row), 0);
  const totals = [
    consumerCount(rows),
    '',
    String(sum((row) => row.granted)),
    String(sum((row) => row.renewed)),
    String(sum((row) => row.released)),
    '',
    '',
    sum((row) => row.leaseHours).toFixed(2),
    '',
    String(sum((row) => row.graceGrants)),
  ];
  const lines = [[...COLUMNS] as string[], ...body, totals];
  const widths = COLUMNS.map((_, i) => Math.max(...lines.map((line) => line[i]!.length)));
  const format = (line: string[]) =>
    line
      .map((text, i) =>
        numeric.has(COLUMNS[i]!) ? text.padStart(widths[i]!) : text.padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return `${[format(lines[0]!), rule, ...body.map(format), rule, format(totals)].join('\n')}\n`;
}

/**
 * The rows of a standby usage summary as `format`: an aligned table with totals, CSV with a
 * header line (RFC 4180, cells a spreadsheet would run as formulas quoted and prefixed with
 * `'`), or JSON (the rows as an array, dates as ISO 8601 strings, lease hours to four places).
 *
 * @example
 * io.stdout(formatUsage(summarizeStandbyUsage(events), 'csv'));
 */
export function formatUsage(rows: readonly StandbyUsageRow[], format: UsageFormat): string {
  if (format === 'json') return toJson(rows);
  if (format === 'table') return toTable(rows);
  const lines = [
    COLUMNS.join(','),
    ...rows.map((row) => COLUMNS.map((column) => csvField(cell(row, column))).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
