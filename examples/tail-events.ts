/**
 * tail-events.ts: tails an event feed and prints each event as it arrives.
 *
 * What it does:
 *   Follows one feed of the event data service with `follow()`: it prints the events already in
 *   the feed, oldest first, then keeps a long poll open and prints new events the moment they
 *   are written (try `npx tsx examples/write-signed-event.ts` in a third terminal). It stops on
 *   Ctrl-C, printing the cursor to resume from, or after TAIL_LIMIT events.
 *
 * Steps:
 *   1. Get a read token: EVENT_READ_TOKEN, or one minted by the mock's built-in identity
 *      provider with the claim `{ "<feed>": true }` (the mock trusts its own issuer for reads).
 *   2. Create an event client with that token.
 *   3. `for await (const event of events.follow(feed, { after }))`: print, remember the cursor.
 *
 * Needs:
 *   - A mock server in another terminal, any flags (the walkthrough's will do):
 *       npm run mock-server
 *     No prior step. Run from the repo root after `npm install`: `npx tsx examples/tail-events.ts`.
 *
 * Assumptions:
 *   - Environment (all optional): EVENT_URL and IDP_URL (defaults http://127.0.0.1:8787/events
 *     and /idp), EVENT_FEED (default `examples`, where write-signed-event.ts writes),
 *     TAIL_AFTER (an `eventReceived_str` to resume after), TAIL_LIMIT (stop after N events),
 *     EVENT_READ_TOKEN (a ready Bearer token, e.g. for a server with `--event-reader-key`).
 */

import { pathToFileURL } from 'node:url';
import { createEventClient, type FeedEvent, timestampToDate } from '@standby-licensing/sdk';

/** Options of {@link main}; each defaults to its environment variable. */
export interface TailEventsOptions {
  /** Base URL of the event service. Env EVENT_URL. */
  eventUrl?: string;
  /** Base URL of the mock's identity provider (mints read tokens). Env IDP_URL. */
  idpUrl?: string;
  /** A ready read token; skips the identity provider. Env EVENT_READ_TOKEN. */
  readToken?: string;
  /** The feed: an `eventSourceId`. Env EVENT_FEED. Default `'examples'`. */
  feed?: string;
  /** Resume after this `eventReceived_str`. Env TAIL_AFTER. Default: the feed's start. */
  after?: string;
  /** Stop after this many events. Env TAIL_LIMIT. Default: never (until `signal`). */
  limit?: number;
  /** How long the server holds each long poll, in ms. Default 30 000. */
  maxWaitMs?: number;
  /** Stops the tail; {@link main} then resolves with the events so far. */
  signal?: AbortSignal;
  /** Where the example prints. Default `console.log`. */
  log?: (line: string) => void;
}

/** What the tail saw. */
export interface TailEventsResult {
  events: FeedEvent[];
  /** The `eventReceived_str` of the last event: pass it as TAIL_AFTER to resume. */
  cursor: string | undefined;
}

/** Follows the feed until `limit` events or `signal`, printing each event. */
export async function main(options: TailEventsOptions = {}): Promise<TailEventsResult> {
  const eventUrl = options.eventUrl ?? (process.env.EVENT_URL || 'http://127.0.0.1:8787/events');
  const idpUrl = options.idpUrl ?? (process.env.IDP_URL || 'http://127.0.0.1:8787/idp');
  const readToken = options.readToken ?? process.env.EVENT_READ_TOKEN;
  const feed = options.feed ?? (process.env.EVENT_FEED || 'examples');
  const after = options.after ?? process.env.TAIL_AFTER;
  const limit =
    options.limit ?? (process.env.TAIL_LIMIT ? Number(process.env.TAIL_LIMIT) : undefined);
  const log = options.log ?? ((line: string) => console.log(line));
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new TypeError('limit must be an integer >= 1');
  }

  // 1-2. The client asks for a token before every request; the mock's are cached for 50 min.
  const token = readToken ? async () => readToken : cachedToken(idpUrl, feed);
  const events = createEventClient({ eventUrl, auth: { token } });

  // 3. Follow. `break` ends the loop quietly; aborting the signal throws its reason.
  const seen: FeedEvent[] = [];
  log(
    `tailing feed '${feed}' at ${eventUrl}${after ? ` after ${after}` : ''}${limit ? ` (${limit} events)` : ''}`,
  );
  try {
    for await (const event of events.follow(feed, {
      ...(after ? { after } : {}),
      ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
      ...(options.signal ? { signal: options.signal } : {}),
      onRetry: ({ error, delayMs }) =>
        log(`  (${error.code}: ${error.message}; retrying in ${Math.round(delayMs)} ms)`),
    })) {
      seen.push(event);
      const at = timestampToDate(event.eventReceived).toISOString();
      log(
        `${event.eventReceived_str} ${at} ${event.eventType} ${JSON.stringify(event.data ?? null)}`,
      );
      if (seen.length === limit) break;
    }
  } catch (error) {
    if (!options.signal?.aborted) throw error;
  }
  const cursor = seen.at(-1)?.eventReceived_str;
  return { events: seen, cursor };
}

/** Read tokens from the mock's `POST /idp/token`, with the one claim this feed needs. */
function cachedToken(idpUrl: string, feed: string): () => Promise<string> {
  let cached: { token: string; renewAt: number } | undefined;
  return async () => {
    if (cached && Date.now() < cached.renewAt) return cached.token;
    const response = await fetch(`${idpUrl}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        sub: 'tail-events',
        expiresInSeconds: 3_600,
        claims: { [feed]: true },
      }),
    });
    if (!response.ok) throw new Error(`POST ${idpUrl}/token: HTTP ${response.status}`);
    const token = ((await response.json()) as { id_token: string }).id_token;
    cached = { token, renewAt: Date.now() + 50 * 60_000 };
    return token;
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  main({ signal: controller.signal }).then(
    ({ events, cursor }) =>
      console.log(
        `stopped after ${events.length} events${cursor ? `; resume with TAIL_AFTER=${cursor}` : ''}`,
      ),
    (error: unknown) => {
      console.error(error);
      if ((error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED') {
        console.error('Is the mock running? npm run mock-server');
      }
      process.exitCode = 1;
    },
  );
}
