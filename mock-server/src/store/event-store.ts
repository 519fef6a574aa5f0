import { EventIndex, type StoredEvent } from './event-index.js';
import { EventLog } from './event-log.js';
import { createTimestampSource } from './event-timestamps.js';

export type { StoredEvent } from './event-index.js';

/** A validated event as written: a plain JSON object with `eventType`, `eventSourceId`, `eventId`. */
export type NewEvent = Record<string, unknown> & {
  eventSourceId: string;
  eventObjectType?: string;
  eventObjectId?: string;
};

/** Called synchronously after each commit with the events it added, in timestamp order. */
export type CommitListener = (events: readonly StoredEvent[]) => void;

/**
 * The events of the event data service, indexed by feed (source id, and object type/id), with
 * timestamps unique and strictly increasing across the service. With a data dir every write is
 * in `<dataDir>/events.log` (fsynced) before `append` resolves, and the log is replayed at start.
 */
export interface EventStore {
  /**
   * Stores a batch all-or-nothing and resolves with the stored events once they are durable.
   * Writes are serialised: timestamps, log order and commit order agree.
   */
  append(events: readonly NewEvent[]): Promise<StoredEvent[]>;
  /** Removes every event (durably). Timestamps keep increasing. */
  clear(): Promise<void>;
  /** The events of a feed: `<eventSourceId>` or `<eventObjectType>/<eventObjectId>`. */
  feed(name: string): EventIndex | undefined;
  /** The largest timestamp handed out so far (0 when none). */
  readonly lastTimestamp: bigint;
  /** Number of stored events. */
  readonly size: number;
  /** Registers a commit listener; returns a function that removes it. */
  onCommit(listener: CommitListener): () => void;
  /** Waits for pending writes and closes the log. Later writes are rejected. */
  close(): Promise<void>;
}

/** Options of {@link createEventStore}. */
export interface EventStoreOptions {
  /** Folder of `events.log`. Default: memory only. */
  dataDir?: string | undefined;
  /** Clock in milliseconds since the epoch (the server clock). Default `Date.now`. */
  now?: () => number;
  /** Told about log lines skipped on replay (a duplicated line, say). Default: ignored. */
  onWarning?: (message: string) => void;
}

interface AppendRecord {
  ts: string[];
  events: NewEvent[];
}
interface ClearRecord {
  clear: string;
}

type Job =
  | {
      kind: 'append';
      events: readonly NewEvent[];
      done: (err?: unknown) => void;
      ts?: bigint[];
      /** Each event as JSON text, made before anything is written. */
      texts?: string[];
      stored?: StoredEvent[];
    }
  | { kind: 'clear'; done: (err?: unknown) => void };

/** Feed name of an object: `<eventObjectType>/<eventObjectId>` (neither may contain `/`). */
export function objectFeedName(type: string, id: string): string {
  return `${type}/${id}`;
}

/** JSON text of an event (`rest`, its own JSON) with `eventReceived` as exact digits and `eventReceived_str` first. */
function eventText(ts: bigint, rest: string): string {
  const digits = ts.toString();
  const head = `{"eventReceived":${digits},"eventReceived_str":"${digits}"`;
  return rest === '{}' ? `${head}}` : `${head},${rest.slice(1)}`;
}

const DIGITS = /^[0-9]+$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks the shape of one replayed log line: a reset `{ clear }` or a batch `{ ts, events }`
 * with one strictly increasing digit timestamp per event and events the service could have
 * stored. Throws an Error naming `where` otherwise: the log is corrupt.
 */
function checkRecord(value: unknown, where: string): AppendRecord | ClearRecord {
  const corrupt = (what: string) => new Error(`${where}: ${what}; the event log is corrupt`);
  if (!isObject(value)) throw corrupt('not a JSON object');
  if ('clear' in value) {
    if (typeof value.clear !== 'string' || !DIGITS.test(value.clear)) {
      throw corrupt('a reset record without a digit timestamp');
    }
    return value as unknown as ClearRecord;
  }
  const { ts, events } = value;
  if (!Array.isArray(ts) || !Array.isArray(events) || ts.length === 0) {
    throw corrupt('neither an event batch { ts, events } nor a reset { clear }');
  }
  if (ts.length !== events.length) throw corrupt('ts and events differ in length');
  let previous = -1n;
  for (const [i, text] of ts.entries()) {
    if (typeof text !== 'string' || !DIGITS.test(text)) throw corrupt(`ts[${i}] is not digits`);
    const stamp = BigInt(text);
    if (stamp <= previous) throw corrupt(`ts[${i}] does not increase within the batch`);
    previous = stamp;
  }
  for (const [i, event] of events.entries()) {
    if (!isObject(event) || typeof event.eventSourceId !== 'string') {
      throw corrupt(`events[${i}] is not an event with an eventSourceId`);
    }
    if ((typeof event.eventObjectType === 'string') !== (typeof event.eventObjectId === 'string')) {
      throw corrupt(`events[${i}] has only one of eventObjectType and eventObjectId`);
    }
  }
  return value as unknown as AppendRecord;
}

/**
 * Opens the event store, replaying `<dataDir>/events.log` when a data dir is given.
 *
 * @example
 * const store = await createEventStore({ dataDir: '.data', now: () => app.clock.now() });
 * await store.append([{ eventType: 'Ping', eventSourceId: 'app-1', eventId: randomUUID() }]);
 */
export async function createEventStore(options: EventStoreOptions = {}): Promise<EventStore> {
  const stamps = createTimestampSource(options.now ?? Date.now);
  let feeds = new Map<string, EventIndex>();
  let size = 0;
  const listeners = new Set<CommitListener>();
  let log: EventLog | undefined;

  const index = (ts: bigint, event: NewEvent, json: string): StoredEvent => {
    const object =
      typeof event.eventObjectType === 'string' && typeof event.eventObjectId === 'string'
        ? objectFeedName(event.eventObjectType, event.eventObjectId)
        : undefined;
    const stored: StoredEvent = {
      ts,
      text: eventText(ts, json),
      source: event.eventSourceId,
      object,
    };
    for (const name of object === undefined ? [stored.source] : [stored.source, object]) {
      let feed = feeds.get(name);
      if (!feed) {
        feed = new EventIndex();
        feeds.set(name, feed);
      }
      feed.push(stored);
    }
    size++;
    return stored;
  };
  const reset = () => {
    feeds = new Map();
    size = 0;
  };

  if (options.dataDir !== undefined) {
    const opened = await EventLog.open(options.dataDir);
    log = opened.log;
    try {
      for (const { line, value } of opened.records) {
        const where = `${opened.log.path}: line ${line}`;
        const record = checkRecord(value, where);
        if ('clear' in record) {
          reset();
          stamps.raise(BigInt(record.clear));
          continue;
        }
        const ts = record.ts.map((text) => BigInt(text));
        // A record is one batch: written once, with timestamps above every earlier one. One
        // that is not (a duplicated line, lines out of order) was never acknowledged as new.
        if (ts[0]! <= stamps.last) {
          options.onWarning?.(
            `${where}: skipped, its timestamps do not increase past the earlier lines (a duplicated or misplaced line)`,
          );
          continue;
        }
        record.events.forEach((event, i) => {
          stamps.raise(ts[i]!);
          index(ts[i]!, event, JSON.stringify(event));
        });
      }
    } catch (err) {
      await log.close();
      throw err;
    }
  }

  // Writes queue here; one drain at a time takes every queued job, writes them with one fsync
  // (group commit), then applies them in order.
  let queue: Job[] = [];
  let running = false;
  let draining: Promise<void> = Promise.resolve();
  let closed = false;

  const drain = async (): Promise<void> => {
    // Loop exit and clearing `running` happen in one synchronous step (no await between the
    // last check of the queue and the finally), so a job queued by a caller resuming from a
    // resolved write always finds either a running drain or none.
    try {
      while (queue.length > 0) {
        const batch = queue;
        queue = [];
        // Serialise first: a job that cannot be (a value too deep for JSON.stringify, say) fails
        // alone, before any timestamp or byte of it is taken, and never stops the queue.
        const jobs: Job[] = [];
        let lines = '';
        for (const job of batch) {
          if (job.kind === 'clear') {
            jobs.push(job);
            lines += `${JSON.stringify({ clear: stamps.last.toString() } satisfies ClearRecord)}\n`;
            continue;
          }
          try {
            job.texts = job.events.map((event) => JSON.stringify(event));
          } catch (err) {
            job.done(err);
            continue;
          }
          job.ts = job.texts.map(() => stamps.next());
          // The same text as JSON.stringify({ ts, events }), without serialising twice.
          lines += `{"ts":[${job.ts.map((ts) => `"${ts}"`).join(',')}],"events":[${job.texts.join(',')}]}\n`;
          jobs.push(job);
        }
        try {
          if (log && lines !== '') await log.append(lines);
        } catch (err) {
          for (const job of jobs) job.done(err);
          continue;
        }
        for (const job of jobs) {
          if (job.kind === 'clear') {
            reset();
            job.done();
            continue;
          }
          const ts = job.ts!;
          const texts = job.texts!;
          job.stored = job.events.map((event, i) => index(ts[i]!, event, texts[i]!));
          job.done();
          for (const listener of listeners) {
            try {
              listener(job.stored);
            } catch {
              // A failing listener must not undo or block a committed write.
            }
          }
        }
      }
    } finally {
      running = false;
    }
  };
  const enqueue = (job: Job): void => {
    queue.push(job);
    if (!running) {
      running = true;
      draining = drain();
    }
  };

  return {
    append(events) {
      if (closed) return Promise.reject(new Error('The event store is closed'));
      return new Promise<StoredEvent[]>((resolve, reject) => {
        const job: Job & { kind: 'append' } = {
          kind: 'append',
          events,
          done: (err) => (err === undefined ? resolve(job.stored ?? []) : reject(err)),
        };
        enqueue(job);
      });
    },
    clear() {
      if (closed) return Promise.reject(new Error('The event store is closed'));
      return new Promise<void>((resolve, reject) => {
        enqueue({ kind: 'clear', done: (err) => (err === undefined ? resolve() : reject(err)) });
      });
    },
    feed: (name) => feeds.get(name),
    get lastTimestamp() {
      return stamps.last;
    },
    get size() {
      return size;
    },
    onCommit(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      while (running) await draining;
      await log?.close();
      log = undefined;
    },
  };
}
