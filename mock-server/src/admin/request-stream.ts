import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestLog, RequestLogEntry } from './request-log.js';

/** Entries sent to a new reader that names no `Last-Event-ID`. */
export const STREAM_BACKLOG = 200;
/** Most entries written in one go; the rest follow on the next turn of the event loop. */
const MAX_ENTRIES_PER_WRITE = 200;
/** A comment line this often keeps proxies from closing an idle stream, in ms. */
const HEARTBEAT_MS = 15_000;

/** The open streams of one server, so shutdown can end them. */
export interface RequestStreams {
  /** Streams open now. */
  readonly size: number;
  /** Ends every stream (their responses finish; readers may reconnect elsewhere). */
  endAll(): void;
}

/** Options of {@link createRequestStreams}. */
export interface RequestStreamsOptions {
  /** Bytes a stream may hold for a slow reader before it stops writing. Default 64 KiB. */
  highWaterMark?: number;
}

/** One server-sent event. */
function sseEvent(event: string, data: unknown, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Each entry's event text, made once however many readers send it. */
const rendered = new WeakMap<RequestLogEntry, string>();

function requestEvent(entry: RequestLogEntry): string {
  let text = rendered.get(entry);
  if (text === undefined) {
    text = sseEvent('request', entry, entry.seq);
    rendered.set(entry, text);
  }
  return text;
}

/** The cursor a reader resumes from: its `Last-Event-ID`, else the last {@link STREAM_BACKLOG}. */
function startCursor(request: FastifyRequest, log: RequestLog): number {
  const last = request.headers['last-event-id'];
  if (typeof last === 'string' && /^[0-9]{1,15}$/.test(last)) {
    return Math.min(Number(last), log.lastSeq);
  }
  return Math.max(0, log.lastSeq - STREAM_BACKLOG);
}

/**
 * Serves the request log as server-sent events (`text/event-stream`): `request` events (id = the
 * entry's `seq`, data = the entry as JSON) and a `dropped` event (`{ count }`) when a reader
 * missed entries. The answer goes through Fastify (`reply.send` of a stream), so the CORS hook's
 * headers are on it like on every route.
 *
 * Readers never slow the server: entries go to the stream only when the log says there are new
 * ones (at most every 100 ms) and only while the stream is not backed up. A reader that does not
 * keep up stops being written to until the socket drains, then resumes from the log, told how
 * many entries were overwritten meanwhile. A reader that goes away is unsubscribed at once; at
 * shutdown `endAll` finishes every stream so `close()` does not wait for them.
 *
 * @example
 * const streams = createRequestStreams();
 * app.get('/requests/stream', (request, reply) => streams.open(request, reply, log));
 * app.addHook('preClose', async () => streams.endAll());
 */
export function createRequestStreams(options: RequestStreamsOptions = {}): RequestStreams & {
  open(request: FastifyRequest, reply: FastifyReply, log: RequestLog): FastifyReply;
} {
  const open = new Set<PassThrough>();
  const highWaterMark = options.highWaterMark ?? 64 * 1024;
  return {
    get size() {
      return open.size;
    },
    endAll() {
      for (const stream of open) stream.end();
      open.clear();
    },
    open(request, reply, log) {
      const stream = new PassThrough({ highWaterMark });
      open.add(stream);
      let cursor = startCursor(request, log);
      let backedUp = false;
      let scheduled: NodeJS.Immediate | undefined;

      const write = (text: string) => {
        if (!stream.write(text)) {
          backedUp = true;
          stream.once('drain', () => {
            backedUp = false;
            flush();
          });
        }
      };
      const flush = () => {
        scheduled = undefined;
        if (backedUp || stream.writableEnded || stream.destroyed) return;
        const { entries, dropped } = log.since(cursor, MAX_ENTRIES_PER_WRITE);
        let text = dropped > 0 ? sseEvent('dropped', { count: dropped }) : '';
        for (const entry of entries) text += requestEvent(entry);
        if (entries.length > 0) cursor = (entries.at(-1) as RequestLogEntry).seq;
        else cursor += dropped;
        if (text !== '') write(text);
        if (!backedUp && cursor < log.lastSeq) scheduled = setImmediate(flush);
      };
      const heartbeat = setInterval(() => {
        if (!backedUp) write(': ping\n\n');
      }, HEARTBEAT_MS);
      heartbeat.unref();
      const unsubscribe = log.subscribe(flush);
      const cleanup = () => {
        unsubscribe();
        clearInterval(heartbeat);
        if (scheduled) clearImmediate(scheduled);
        open.delete(stream);
      };
      // The reader went away (or the answer ended): stop at once, keep nothing.
      reply.raw.once('close', () => {
        cleanup();
        stream.destroy();
      });
      stream.once('close', cleanup);

      reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        .header('x-accel-buffering', 'no');
      // The reconnect delay, then what the reader missed (or the recent backlog).
      write('retry: 2000\n\n');
      flush();
      return reply.send(stream);
    },
  };
}
