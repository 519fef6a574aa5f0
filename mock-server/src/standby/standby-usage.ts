import {
  STANDBY_EVENT_SOURCE,
  type StandbyUsageEvent,
  type StandbyUsageRow,
  summarizeStandbyUsage,
} from '@standby-licensing/wire';
import type { EventStore } from '../store/event-store.js';
import type { OutboxJournal } from '../store/outbox-journal.js';

/** What the standby granted in a window, as `GET /admin/standby/usage` answers it. */
export interface StandbyUsageView {
  /** Standby lease events in the window. */
  events: number;
  /** Events still in the outbox: not in the event service yet, so not counted. */
  waiting: number;
  /** The rows `standby-licensing usage` prints (wire's `summarizeStandbyUsage`), dates as ISO 8601 strings (null when none), lease hours to four places. */
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
