import { ApiError } from '../errors.js';
import { EventLog } from './event-log.js';
import type { Outbox, OutboxEntry, OutboxEvent } from './outbox.js';

/** Options of {@link openOutboxJournal}. */
export interface OutboxJournalOptions {
  /** Folder of the journal file. Default: memory only. */
  dataDir?: string | undefined;
  /** Name of the journal file in `dataDir`, e.g. `standby-outbox.log`. */
  file: string;
  /** Most entries waiting at once; one more is refused with 503 `outbox_full`. */
  maxEntries: number;
  /** Named in the `outbox_full` refusal: the option that raises `maxEntries`. */
  limitName: string;
}

/**
 * A service's outbox kept as an append-only journal: one line per recorded entry, one per
 * acknowledgement. For events made on a hot path (a lease answer each): recording costs one
 * appended line, fsynced together with every other line queued meanwhile (group commit), where a
 * document outbox rewrites the whole document per change (docs/decisions/0036-standby-usage-events.md).
 */
export interface OutboxJournal extends Outbox {
  /**
   * Records one entry's events. Resolves once the entry is durable (with a data dir: its line is
   * fsynced) and listed by `outbox()`; only then may the answer that made them go out. Rejects
   * with 503 `outbox_full` when `maxEntries` entries wait, and with the write's error when the
   * line could not be stored (the entry is then not recorded).
   *
   * @param storedAfter - the event store's last timestamp now (see {@link OutboxEntry.storedAfter})
   */
  record(events: OutboxEvent[], storedAfter: bigint): Promise<void>;
  /** Events waiting in all entries. */
  readonly pendingEvents: number;
  /** Called after entries were recorded. */
  onChange(listener: () => void): void;
  /** Waits for queued lines, then closes the file. Later records are rejected. */
  close(): Promise<void>;
}

/** A recorded entry's line. */
interface EntryRecord {
  change: number;
  storedAfter: string;
  events: OutboxEvent[];
}
/** An acknowledgement's line: every entry up to `ack` was delivered. */
interface AckRecord {
  ack: number;
}

/** A log larger than this with nothing waiting is emptied (its records are all spent). */
const COMPACT_BYTES = 1024 * 1024;

const DIGITS = /^[0-9]+$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks one replayed line; throws an Error naming `where` when it is not one the journal wrote. */
function checkRecord(value: unknown, where: string): EntryRecord | AckRecord {
  const corrupt = (what: string) => new Error(`${where}: ${what}; the outbox journal is corrupt`);
  if (!isObject(value)) throw corrupt('not a JSON object');
  if ('ack' in value) {
    if (!Number.isSafeInteger(value.ack)) throw corrupt('an acknowledgement without a number');
    return value as unknown as AckRecord;
  }
  const { change, storedAfter, events } = value;
  if (!Number.isSafeInteger(change) || (change as number) < 1) throw corrupt('no change number');
  if (typeof storedAfter !== 'string' || !DIGITS.test(storedAfter)) {
    throw corrupt('storedAfter is not digits');
  }
  if (!Array.isArray(events) || events.length === 0) throw corrupt('an entry without events');
  for (const [i, event] of events.entries()) {
    const ok =
      isObject(event) &&
      ['eventId', 'eventType', 'eventSourceId', 'eventObjectType', 'eventObjectId'].every(
        (field) => typeof event[field] === 'string' && event[field] !== '',
      ) &&
      isObject(event.data);
    if (!ok) throw corrupt(`events[${i}] is not an event the journal writes`);
  }
  return value as unknown as EntryRecord;
}

interface Job {
  line: string;
  entry?: OutboxEntry;
  done(error?: unknown): void;
}

/**
 * Opens the journal `<dataDir>/<file>` (replaying what a previous run left waiting) or, without
 * a data dir, an outbox in memory. A damaged journal stops the start, like every data file
 * (docs/decisions/0008-data-dir-integrity.md).
 *
 * @example
 * const journal = await openOutboxJournal({ dataDir, file: 'standby-outbox.log',
 *   maxEntries: 100_000, limitName: '--max-standby-outbox' });
 * await journal.record(events, app.eventStore.lastTimestamp); // durable: answer now
 */
export async function openOutboxJournal(options: OutboxJournalOptions): Promise<OutboxJournal> {
  let entries: OutboxEntry[] = [];
  let lastChange = 0;
  let pendingEvents = 0;
  let log: EventLog | undefined;
  if (options.dataDir !== undefined) {
    const opened = await EventLog.open(options.dataDir, options.file);
    log = opened.log;
    try {
      for (const { line, value } of opened.records) {
        const record = checkRecord(value, `${opened.log.path}: line ${line}`);
        if ('ack' in record) {
          entries = entries.filter((entry) => entry.change > record.ack);
          continue;
        }
        if (record.change <= lastChange) {
          throw new Error(
            `${opened.log.path}: line ${line}: change ${record.change} does not increase; the outbox journal is corrupt`,
          );
        }
        lastChange = record.change;
        entries.push(record);
      }
      // Nothing waits: every line is spent.
      if (entries.length === 0 && log.size > 0) await log.truncate();
    } catch (err) {
      await log.close();
      throw err;
    }
  }
  pendingEvents = entries.reduce((sum, entry) => sum + entry.events.length, 0);

  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  let queued = 0;
  let queue: Job[] = [];
  let running = false;
  let flushing: Promise<void> = Promise.resolve();
  let closed = false;

  const add = (entry: OutboxEntry) => {
    entries.push(entry);
    pendingEvents += entry.events.length;
  };

  // One flush at a time writes every queued line with one fsync (group commit), then lists the
  // recorded entries and answers their callers.
  const flush = async (file: EventLog): Promise<void> => {
    // The loop's last look at the queue and clearing `running` are one synchronous step (no
    // await between), so a line queued by a caller resuming from a finished record always finds
    // a running flush or none.
    try {
      while (queue.length > 0) {
        const batch = queue;
        queue = [];
        const records = batch.filter((job) => job.entry !== undefined).length;
        queued -= records;
        try {
          // An acknowledgement lost in a crash costs a lookup at the next start, never an event.
          await file.append(batch.map((job) => job.line).join(''), { sync: records > 0 });
        } catch (err) {
          for (const job of batch) job.done(err);
          continue;
        }
        for (const job of batch) if (job.entry) add(job.entry);
        for (const job of batch) job.done();
        if (records > 0) notify();
        if (entries.length === 0 && file.size > COMPACT_BYTES) {
          await file.truncate().catch(() => undefined);
        }
      }
    } finally {
      running = false;
    }
  };
  const enqueue = (file: EventLog, job: Job) => {
    queue.push(job);
    if (!running) {
      running = true;
      flushing = flush(file);
    }
  };

  return {
    // A copy: entries recorded later must not appear in what a delivery already took.
    outbox: () => entries.slice(),
    get pendingEvents() {
      return pendingEvents;
    },
    record(events, storedAfter) {
      if (closed) return Promise.reject(new Error('The outbox journal is closed'));
      if (entries.length + queued >= options.maxEntries) {
        return Promise.reject(
          new ApiError(
            503,
            'outbox_full',
            `${entries.length + queued} answers wait for the event service to take their events (${options.limitName}); try again once they are written`,
            { 'retry-after': '5' },
          ),
        );
      }
      const entry: OutboxEntry = {
        change: ++lastChange,
        storedAfter: storedAfter.toString(),
        events,
      };
      if (!log) {
        add(entry);
        notify();
        return Promise.resolve();
      }
      const file = log;
      queued++;
      return new Promise<void>((resolve, reject) => {
        enqueue(file, {
          line: `${JSON.stringify(entry)}\n`,
          entry,
          done: (err) => (err === undefined ? resolve() : reject(err)),
        });
      });
    },
    acknowledge(upTo) {
      const rest = entries.filter((entry) => entry.change > upTo);
      if (rest.length === entries.length) return Promise.resolve();
      entries = rest;
      pendingEvents = rest.reduce((sum, entry) => sum + entry.events.length, 0);
      if (!log || closed) return Promise.resolve();
      const file = log;
      return new Promise<void>((resolve, reject) => {
        enqueue(file, {
          line: `${JSON.stringify({ ack: upTo } satisfies AckRecord)}\n`,
          done: (err) => (err === undefined ? resolve() : reject(err)),
        });
      });
    },
    onChange(listener) {
      listeners.add(listener);
    },
    async close() {
      closed = true;
      while (running) await flushing;
      await log?.close();
      log = undefined;
    },
  };
}
