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
      stored?: StoredEvent[];
    }
  | { kind: 'clear'; done: (err?: unknown) => void };

/** Feed name of an object: `<eventObjectType>/<eventObjectId>` (neither may contain `/`). */
export function objectFeedName(type: string, id: string): string {
  return `${type}/${id}`;
}

/** JSON text of an event with `eventReceived` as exact digits and `eventReceived_str` first. */
function eventText(ts: bigint, event: NewEvent): string {
  const digits = ts.toString();
  const rest = JSON.stringify(event);
  const head = `{"eventReceived":${digits},"eventReceived_str":"${digits}"`;
  return rest === '{}' ? `${head}}` : `${head},${rest.slice(1)}`;
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

  const index = (ts: bigint, event: NewEvent): StoredEvent => {
    const object =
      typeof event.eventObjectType === 'string' && typeof event.eventObjectId === 'string'
        ? objectFeedName(event.eventObjectType, event.eventObjectId)
        : undefined;
    const stored: StoredEvent = {
      ts,
      text: eventText(ts, event),
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
    for (const record of opened.records as Array<Partial<AppendRecord & ClearRecord>>) {
      if (typeof record.clear === 'string') {
        reset();
        stamps.raise(BigInt(record.clear));
      } else if (Array.isArray(record.ts) && Array.isArray(record.events)) {
        record.events.forEach((event, i) => {
          const ts = BigInt(record.ts![i]!);
          stamps.raise(ts);
          index(ts, event);
        });
      }
    }
  }

  // Writes queue here; one drain at a time takes every queued job, writes them with one fsync
  // (group commit), then applies them in order.
  let queue: Job[] = [];
  let running = false;
  let draining: Promise<void> = Promise.resolve();
  let closed = false;

  const drain = async (): Promise<void> => {
    // Loop exit and clearing `running` happen in one synchronous step, so a job queued by a
    // caller resuming from a resolved write always finds either a running drain or none.
    while (queue.length > 0) {
      const jobs = queue;
      queue = [];
      let lines = '';
      for (const job of jobs) {
        if (job.kind === 'append') {
          job.ts = job.events.map(() => stamps.next());
          const record: AppendRecord = { ts: job.ts.map(String), events: [...job.events] };
          lines += `${JSON.stringify(record)}\n`;
        } else {
          const record: ClearRecord = { clear: stamps.last.toString() };
          lines += `${JSON.stringify(record)}\n`;
        }
      }
      try {
        if (log) await log.append(lines);
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
        job.stored = job.events.map((event, i) => index(ts[i]!, event));
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
    running = false;
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
