import type { EventStore } from '../store/event-store.js';
import type { OutboxJournal } from '../store/outbox-journal.js';
import { STANDBY_EVENT_SOURCE } from './standby-events.js';

/** One consumer's use of one item (the SDK's `StandbyUsageRow`). */
export interface StandbyUsageRow {
  consumer: string;
  item: string;
  granted: number;
  renewed: number;
  released: number;
  firstGrant: Date | null;
  lastExp: Date | null;
  leaseHours: number;
  devices: number;
  graceGrants: number;
}

/** What the summary reads of an event, as the event store holds it (parsed). */
export interface StandbyUsageEvent {
  eventType: string;
  eventSourceId: string;
  eventObjectId?: string;
  eventReceived?: bigint | number;
  eventReceived_str?: string;
  data?: unknown;
}

const NS_PER_MS = 1_000_000n;

function receivedOf(event: StandbyUsageEvent): bigint | undefined {
  if (typeof event.eventReceived === 'bigint') return event.eventReceived;
  const digits = event.eventReceived_str;
  return typeof digits === 'string' && /^\d{1,19}$/.test(digits) ? BigInt(digits) : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

interface Tally {
  row: StandbyUsageRow;
  hw: Set<string>;
  /** Grant `iat`s, seconds: the smallest is `firstGrant`. */
  firstGrant: number | undefined;
  lastExp: number | undefined;
  /** Lease time in whole milliseconds: integers add up the same in any order, floats do not. */
  leaseMs: number;
}

interface Lease {
  consumer: string;
  item: string | undefined;
  /** Earliest `iat` of its grant and renewals, in seconds. */
  start: number | undefined;
  /** Latest `exp`, in seconds. */
  end: number | undefined;
  /** Earliest release, in seconds (its event's `eventReceived`). */
  releasedAt: number | undefined;
}

/**
 * A copy of the SDK's `summarizeStandbyUsage` (sdk/src/events/summarize-standby-usage.ts), kept
 * here because the mock server does not depend on the SDK: the QA console's "What the standby
 * granted" shows what `standby-licensing usage` prints. test/events/standby-usage-copies.test.ts
 * keeps the two equal on generated events. One row per consumer and item, sorted by consumer then
 * item; events outside `[from, to)` by `eventReceived` are skipped.
 *
 * @example
 * const rows = summarizeStandbyUsage(feed.map((stored) => JSON.parse(stored.text)));
 */
export function summarizeStandbyUsage(
  events: Iterable<StandbyUsageEvent>,
  options: { from?: bigint; to?: bigint } = {},
): StandbyUsageRow[] {
  const { from, to } = options;
  const tallies = new Map<string, Tally>();
  const leases = new Map<string, Lease>();
  // Releases are placed once every event is read: their item may be known only from the grant.
  const releases: Array<{ consumer: string; leaseKey?: string; item?: string; hw?: string }> = [];

  const tallyOf = (consumer: string, item: string): Tally => {
    const key = `${consumer}\n${item}`;
    let tally = tallies.get(key);
    if (!tally) {
      tally = {
        row: {
          consumer,
          item,
          granted: 0,
          renewed: 0,
          released: 0,
          firstGrant: null,
          lastExp: null,
          leaseHours: 0,
          devices: 0,
          graceGrants: 0,
        },
        hw: new Set(),
        firstGrant: undefined,
        lastExp: undefined,
        leaseMs: 0,
      };
      tallies.set(key, tally);
    }
    return tally;
  };

  for (const event of events) {
    if (event.eventSourceId !== STANDBY_EVENT_SOURCE) continue;
    const type = event.eventType;
    if (
      type !== 'StandbyLeaseGranted' &&
      type !== 'StandbyLeaseRenewed' &&
      type !== 'StandbyLeaseReleased'
    ) {
      continue;
    }
    const received = receivedOf(event);
    if (from !== undefined && (received === undefined || received < from)) continue;
    if (to !== undefined && (received === undefined || received >= to)) continue;
    const consumer = text(event.eventObjectId);
    if (consumer === undefined) continue;
    const data = (
      typeof event.data === 'object' && event.data !== null ? event.data : {}
    ) as Record<string, unknown>;
    const leaseId = text(data.leaseId);
    const item = text(data.licensedItemName);
    const iat = finite(data.iat);
    const exp = finite(data.exp);
    const hw = text(data.hw);
    const leaseKey = leaseId === undefined ? undefined : `${consumer}\n${leaseId}`;

    if (type === 'StandbyLeaseReleased') {
      releases.push({
        consumer,
        ...(leaseKey === undefined ? {} : { leaseKey }),
        ...(item === undefined ? {} : { item }),
        ...(hw === undefined ? {} : { hw }),
      });
      if (leaseKey === undefined || received === undefined) continue;
      const at = Number(received / NS_PER_MS) / 1000;
      const lease = leases.get(leaseKey);
      if (lease) lease.releasedAt = Math.min(lease.releasedAt ?? at, at);
      else
        leases.set(leaseKey, { consumer, item, start: undefined, end: undefined, releasedAt: at });
      continue;
    }

    const tally = tallyOf(consumer, item ?? '');
    if (hw !== undefined) tally.hw.add(hw);
    if (exp !== undefined) tally.lastExp = Math.max(tally.lastExp ?? exp, exp);
    if (type === 'StandbyLeaseGranted') {
      tally.row.granted++;
      if (iat !== undefined) tally.firstGrant = Math.min(tally.firstGrant ?? iat, iat);
      if ((finite(data.idTokenGraceSeconds) ?? 0) > 0) tally.row.graceGrants++;
    } else {
      tally.row.renewed++;
    }
    if (leaseKey === undefined) continue;
    const lease = leases.get(leaseKey);
    if (!lease) {
      leases.set(leaseKey, { consumer, item, start: iat, end: exp, releasedAt: undefined });
      continue;
    }
    lease.item ??= item;
    if (iat !== undefined) lease.start = Math.min(lease.start ?? iat, iat);
    if (exp !== undefined) lease.end = Math.max(lease.end ?? exp, exp);
  }

  for (const release of releases) {
    const lease = release.leaseKey === undefined ? undefined : leases.get(release.leaseKey);
    const tally = tallyOf(release.consumer, release.item ?? lease?.item ?? '');
    tally.row.released++;
    if (release.hw !== undefined) tally.hw.add(release.hw);
  }
  for (const lease of leases.values()) {
    if (lease.start === undefined) continue;
    const until =
      lease.releasedAt === undefined
        ? lease.end
        : Math.min(lease.releasedAt, lease.end ?? lease.releasedAt);
    if (until === undefined || until <= lease.start) continue;
    tallyOf(lease.consumer, lease.item ?? '').leaseMs += Math.round((until - lease.start) * 1000);
  }

  const rows: StandbyUsageRow[] = [];
  for (const tally of tallies.values()) {
    const { row } = tally;
    row.devices = tally.hw.size;
    row.leaseHours = tally.leaseMs / 3_600_000;
    if (tally.firstGrant !== undefined) row.firstGrant = new Date(tally.firstGrant * 1000);
    if (tally.lastExp !== undefined) row.lastExp = new Date(tally.lastExp * 1000);
    rows.push(row);
  }
  return rows.sort((a, b) =>
    a.consumer < b.consumer ? -1 : a.consumer > b.consumer ? 1 : a.item < b.item ? -1 : 1,
  );
}

/** What the standby granted in a window, as `GET /admin/standby/usage` answers it. */
export interface StandbyUsageView {
  /** Standby lease events in the window. */
  events: number;
  /** Events still in the outbox: not in the event service yet, so not counted. */
  waiting: number;
  /** {@link summarizeStandbyUsage}'s rows, dates as ISO 8601 strings (null when none), lease hours to four places. */
  rows: Array<
    Omit<StandbyUsageRow, 'firstGrant' | 'lastExp'> & {
      firstGrant: string | null;
      lastExp: string | null;
    }
  >;
}

/**
 * Summarises the `standby` feed of `events` received in `[from, to)` (timestamps in ns; no bound
 * when undefined), reading only that range of the feed.
 *
 * @example
 * const view = readStandbyUsage(app.eventStore, app.standbyOutbox);
 */
export function readStandbyUsage(
  events: EventStore,
  outbox: OutboxJournal,
  window: { from?: bigint | undefined; to?: bigint | undefined } = {},
): StandbyUsageView {
  const { from, to } = window;
  const feed = events.feed(STANDBY_EVENT_SOURCE);
  const read: StandbyUsageEvent[] = [];
  if (feed) {
    const first = from === undefined ? 0 : feed.firstAtOrAfter(from);
    const end = to === undefined ? feed.size : feed.firstAtOrAfter(to);
    for (let i = first; i < end; i++) {
      const stored = feed.at(i);
      read.push({ ...(JSON.parse(stored.text) as StandbyUsageEvent), eventReceived: stored.ts });
    }
  }
  const rows = summarizeStandbyUsage(read, {
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  });
  return {
    events: read.length,
    waiting: outbox.pendingEvents,
    rows: rows.map((row) => ({
      ...row,
      firstGrant: row.firstGrant?.toISOString() ?? null,
      lastExp: row.lastExp?.toISOString() ?? null,
      // Four places, as `standby-licensing usage --format json` prints them.
      leaseHours: Math.round(row.leaseHours * 10_000) / 10_000,
    })),
  };
}
