import {
  STANDBY_EVENT_SOURCE as SOURCE,
  summarizeStandbyUsage as summarize,
} from '@standby-licensing/wire';
import { LicensingError } from '../errors.js';
import type { EventBase } from './event-kinds.js';
import { type EventTimestamp, timestampFromDate } from './timestamp.js';

/** `eventSourceId` of the standby's lease events: the feed `summarizeStandbyUsage` reads. */
export const STANDBY_EVENT_SOURCE: 'standby' = SOURCE;

/** The kinds of standby lease events, one per lease granted, renewed or released. */
export type StandbyLeaseEventType =
  | 'StandbyLeaseGranted'
  | 'StandbyLeaseRenewed'
  | 'StandbyLeaseReleased';

// The published declarations never name the private wire workspace, so the row is declared here
// as well as in wire: `summarizeStandbyUsage` returns wire's rows as these, which fails to compile
// when the two drift apart.

/**
 * One consumer's use of one item, as the standby granted it (DECISIONS "Outage usage"). What the
 * standby cannot know is not here: it grants every authenticated caller, so whether the consumer
 * held a license (and how many seats) is for the vendor to match against main's records.
 */
export interface StandbyUsageRow {
  /** `eventObjectId`: the ID token's `sub`, or `service-key-<16 hex>` for a service. */
  consumer: string;
  /** The licensed item; `''` for the release of a lease neither event names the item of. */
  item: string;
  /** Leases the standby granted (`StandbyLeaseGranted`). */
  granted: number;
  /** Renewals (`StandbyLeaseRenewed`), of its own leases or of main's. */
  renewed: number;
  /** Releases (`StandbyLeaseReleased`). */
  released: number;
  /** `iat` of the earliest grant, or null when none is in the window. */
  firstGrant: Date | null;
  /** The latest `exp` of a lease granted or renewed, or null when none is in the window. */
  lastExp: Date | null;
  /**
   * Lease hours: each lease (one lease id, however often renewed) from its first `iat` in the
   * window to its release (the release event's `eventReceived`) or else its last `exp`.
   */
  leaseHours: number;
  /** Distinct devices (`hw`) the events name. */
  devices: number;
  /** Grants made while the caller's ID token was past its `exp`, in the 24 h grace. */
  graceGrants: number;
}

/** Options of {@link summarizeStandbyUsage}. */
export interface StandbyUsageOptions {
  /** Only events received at or after this (a `Date`, or a timestamp in ns). Default: no bound. */
  from?: Date | EventTimestamp;
  /** Only events received before this (a `Date`, or a timestamp in ns). Default: no bound. */
  to?: Date | EventTimestamp;
}

/** What the summary reads of an event: a feed event, or one parsed from a feed's JSON. */
export type StandbyUsageEvent = Pick<EventBase, 'eventType' | 'eventSourceId'> & {
  eventObjectId?: string;
  /** `bigint` as the event client yields it (or digits, as `eventReceived_str` holds them). */
  eventReceived?: EventTimestamp | number;
  eventReceived_str?: string;
  data?: unknown;
};

function bound(value: Date | EventTimestamp | undefined, name: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'bigint') return value;
  if (value instanceof Date) return timestampFromDate(value);
  throw new LicensingError(
    'INVALID_ARGUMENT',
    `${name} is neither a Date nor a bigint timestamp (nanoseconds since the epoch). Pass one of them.`,
  );
}

/**
 * Summarises the standby's lease events (the `standby` feed, or any events among which they
 * are) into one row per consumer and item, sorted by consumer then item: grants, renewals and
 * releases counted, the first grant, the last expiry, lease hours, distinct devices and the
 * grants made in the ID-token grace. Events of other sources and kinds are skipped, as are events
 * outside `[from, to)` by `eventReceived`. The order of `events` does not matter.
 *
 * What the standby cannot know stays out: it grants a lease to any authenticated caller, so seat
 * counts and whether the consumer held a license are the vendor's to check against main's records
 * (docs/outage-usage.md).
 *
 * @param events - e.g. `await events.collect('standby', { after, before, limit })`
 * @throws LicensingError `INVALID_ARGUMENT` for a `from` or `to` that is neither a Date nor a bigint.
 * @example
 * import { createEventClient, summarizeStandbyUsage, timestampFromDate } from '@standby-licensing/sdk';
 *
 * const events = createEventClient({ eventUrl, auth: { privateKey: readerPem }, pageSize: 10_000 });
 * const from = new Date('2031-03-03T09:00Z');
 * const to = new Date('2031-03-03T17:00Z');
 * const window = await events.collect('standby', {
 *   after: timestampFromDate(from) - 1n,
 *   before: timestampFromDate(to),
 *   limit: 1_000_000,
 * });
 * for (const row of summarizeStandbyUsage(window, { from, to })) {
 *   console.log(row.consumer, row.item, row.granted, row.leaseHours.toFixed(1));
 * }
 */
export function summarizeStandbyUsage(
  events: Iterable<StandbyUsageEvent>,
  options: StandbyUsageOptions = {},
): StandbyUsageRow[] {
  return summarize(events, { from: bound(options.from, 'from'), to: bound(options.to, 'to') });
}
