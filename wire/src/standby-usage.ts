// What the standby granted, summarised from its lease events (DECISIONS "Outage usage"): the SDK's
// `summarizeStandbyUsage` and `standby-licensing usage`, and the mock server's QA console ("What
// the standby granted", `GET /admin/standby/usage`) print the same rows from this one function.

/** `eventSourceId` of the standby's lease events: the feed the summary reads. */
export const STANDBY_EVENT_SOURCE = 'standby';

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

/** What the summary reads of an event: a feed event, or one parsed from a feed's JSON. */
export interface StandbyUsageEvent {
  eventType: string;
  eventSourceId: string;
  eventObjectId?: string;
  /** `bigint` as the event client yields it (or digits, as `eventReceived_str` holds them). */
  eventReceived?: bigint | number;
  eventReceived_str?: string;
  data?: unknown;
}

const NS_PER_MS = 1_000_000n;

const INT64_MAX = 9_223_372_036_854_775_807n;

/** `eventReceived` as a bigint, or its digits (`eventReceived_str`) when they are a timestamp. */
function receivedOf(event: StandbyUsageEvent): bigint | undefined {
  if (typeof event.eventReceived === 'bigint') return event.eventReceived;
  const digits = event.eventReceived_str;
  if (typeof digits !== 'string' || !/^\d{1,19}$/.test(digits)) return undefined;
  const parsed = BigInt(digits);
  return parsed <= INT64_MAX ? parsed : undefined;
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
 * Summarises the standby's lease events (the `standby` feed, or any events among which they
 * are) into one row per consumer and item, sorted by consumer then item: grants, renewals and
 * releases counted, the first grant, the last expiry, lease hours, distinct devices and the
 * grants made in the ID-token grace. Events of other sources and kinds are skipped, as are events
 * outside `[from, to)` by `eventReceived` (timestamps in ns; no bound when undefined). The order
 * of `events` does not matter.
 *
 * @example
 * const rows = summarizeStandbyUsage(feed.map((stored) => JSON.parse(stored.text)));
 */
export function summarizeStandbyUsage(
  events: Iterable<StandbyUsageEvent>,
  window: { from?: bigint | undefined; to?: bigint | undefined } = {},
): StandbyUsageRow[] {
  const { from, to } = window;
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
