import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { isLicensingError } from '../errors.js';
import { createEventClient } from '../events/create-event-client.js';
import type { FeedEvent } from '../events/event-kinds.js';
import { STANDBY_EVENT_SOURCE, summarizeStandbyUsage } from '../events/summarize-standby-usage.js';
import { timestampFromDate } from '../events/timestamp.js';
import { CliError, usageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { formatUsage, USAGE_FORMATS, type UsageFormat } from './usage-report.js';

/** Environment variable read when neither `--reader-token` nor `--reader-key` is given. */
export const READER_TOKEN_ENV = 'STANDBY_LICENSING_READER_TOKEN';

/** Events per request: the event service's cap, so a long window takes few round trips. */
const PAGE_SIZE = 10_000;

export const STANDBY_USAGE_USAGE = `Usage:
  standby-licensing usage --event-url <url> (--reader-token <jwt> | --reader-key <pem file>)
                          [--from <ISO time>] [--to <ISO time>] [--format table|csv|json]

Reads what the standby granted from the event service (its \`standby\` feed, every page of
the window) and prints one row per consumer and licensed item: leases granted, renewed and
released, the first grant, the last expiry, lease hours, distinct devices (hw) and the grants
made in the ID-token grace. Reconcile it with main's licenses after an outage:
https://github.com/standby-licensing/standby-licensing/blob/main/docs/outage-usage.md

The standby grants every authenticated caller: it cannot know seat counts or whether a
consumer held a license. That comparison is yours, against main's records.

Options:
  --event-url <url>         Base URL of the event service (e.g. http://127.0.0.1:8787/events)
  --reader-token <jwt>      A read JWT with the claim "standby" (or "*")
                            (default: $${READER_TOKEN_ENV})
  --reader-key <pem file>   ... or a private key the event service trusts for reads
                            (PKCS#8 PEM): the command signs short-lived read JWTs
  --reader-key-id <kid>     kid of --reader-key, when the service picks keys by id
  --from <ISO time>         Only events received at or after this (e.g. 2031-03-03T09:00Z)
  --to <ISO time>           Only events received before this
  --format <format>         ${USAGE_FORMATS.join('|')} (default: table)
  -h, --help                Show this help

Exit codes: 0 printed, 1 failed (event service, network, key file), 2 bad usage.
`;

const OPTIONS = {
  'event-url': { type: 'string' },
  'reader-token': { type: 'string' },
  'reader-key': { type: 'string' },
  'reader-key-id': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A command-line time: ISO 8601 with a date, e.g. `2031-03-03T09:00Z` or `2031-03-03`. */
function parseTime(value: string, option: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()) || date.getTime() < 0) {
    throw usageError(`${option} must be an ISO 8601 time such as 2031-03-03T09:00Z, got ${value}`);
  }
  return date;
}

function parseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`--event-url must be an absolute http(s) URL, got ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`--event-url must be an http(s) URL, got ${value}`);
  }
  return value.replace(/\/+$/, '');
}

/**
 * `standby-licensing usage`: reads the standby's lease events of a window from the event service
 * (every page) and prints {@link summarizeStandbyUsage}'s rows as a table, CSV or JSON.
 * Resolves the exit code; usage errors and failures throw a {@link CliError}.
 *
 * @example
 * process.exitCode = await standbyUsage(['--event-url', url, '--reader-key', 'reader.pem'], io);
 */
export async function standbyUsage(argv: readonly string[], io: CliIo): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true }));
  } catch (error) {
    throw usageError((error as Error).message);
  }
  if (values.help) {
    io.stdout(STANDBY_USAGE_USAGE);
    return 0;
  }
  if (values['event-url'] === undefined) throw usageError('--event-url <url> is required');
  const eventUrl = parseUrl(values['event-url']);
  const format = (values.format ?? 'table') as UsageFormat;
  if (!USAGE_FORMATS.includes(format)) {
    throw usageError(`--format must be one of ${USAGE_FORMATS.join(', ')}, got ${values.format}`);
  }
  const from = values.from === undefined ? undefined : parseTime(values.from, '--from');
  const to = values.to === undefined ? undefined : parseTime(values.to, '--to');
  if (from && to && from.getTime() >= to.getTime()) throw usageError('--from must be before --to');
  if (values['reader-token'] !== undefined && values['reader-key'] !== undefined) {
    throw usageError('give --reader-token or --reader-key, not both');
  }
  if (values['reader-key-id'] !== undefined && values['reader-key'] === undefined) {
    throw usageError('--reader-key-id goes with --reader-key');
  }
  const token = values['reader-token'] ?? io.env[READER_TOKEN_ENV];
  let auth: Parameters<typeof createEventClient>[0]['auth'];
  if (values['reader-key'] !== undefined) {
    const file = values['reader-key'];
    let privateKey: string;
    try {
      privateKey = await readFile(file, 'utf8');
    } catch (error) {
      throw new CliError(1, `cannot read --reader-key ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const kid = values['reader-key-id'];
    auth = { privateKey, ...(kid === undefined ? {} : { kid }) };
  } else if (token !== undefined && token !== '') {
    auth = { token: () => token };
  } else {
    throw usageError(`give --reader-token or --reader-key (or set $${READER_TOKEN_ENV})`);
  }

  const client = createEventClient({ eventUrl, auth, pageSize: PAGE_SIZE, fetch: io.fetch });
  const fromTs = from && timestampFromDate(from);
  const events: FeedEvent[] = [];
  try {
    // `after` is exclusive: one nanosecond before `from` keeps events received at `from`.
    const pages = client.pages(STANDBY_EVENT_SOURCE, {
      ...(fromTs === undefined || fromTs === 0n ? {} : { after: fromTs - 1n }),
      ...(to === undefined ? {} : { before: timestampFromDate(to) }),
    });
    for await (const page of pages) events.push(...page.events);
  } catch (error) {
    if (isLicensingError(error)) {
      throw new CliError(1, `reading ${eventUrl} feed standby: ${error.message}`, { cause: error });
    }
    throw error;
  }
  const rows = summarizeStandbyUsage(events, {
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  });
  io.stdout(formatUsage(rows, format));
  return 0;
}
