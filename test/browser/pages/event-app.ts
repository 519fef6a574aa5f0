// Page script of test/browser/event-client.test.ts, bundled from the built SDK: a web app that
// reads, follows (long polling) and writes (signed on WebCrypto) an event feed cross-origin with
// `createEventClient`, given NO `fetch` option, so the SDK calls the page's own `fetch` (the
// "Illegal invocation" bug of issue 12 must stay fixed).
import {
  createEventClient,
  type EventClient,
  type EventClientOptions,
  type FeedEvent,
  type NewEvent,
} from '@standby-licensing/sdk';
import { type ErrorReport, isNative, type Outcome, outcome, reportError } from './page-report.js';

/** How the page's event client is set up. */
export interface EventAppConfig {
  eventUrl: string;
  /** Bearer token for reads (from the mock's issuer, claiming every feed). */
  readToken: string;
  /** PKCS#8 PEM of the writer key the service trusts. */
  writerKeyPem: string;
}

/** An event as plain data. */
export interface EventReport {
  eventId: string;
  eventType: string;
  eventSourceId: string;
  eventReceived_str: string;
  data: unknown;
}

/** The page's surface, on `window.eventApp`. */
export interface EventAppPage {
  /** Creates the client; resolves the option names the page passed to `createEventClient`. */
  start(config: EventAppConfig): string[];
  /** Whether `globalThis.fetch` is still the browser's own (nothing wrapped or replaced it). */
  nativeFetch(): boolean;
  /** `put` with the client's signer, or with another PKCS#8 key when given. */
  put(events: NewEvent[], otherKeyPem?: string): Promise<Outcome<null>>;
  /**
   * `putAll` of `batches` with the client's signer; also says whether the page has
   * `setImmediate` (a browser does not: the SDK schedules each next signing another way).
   */
  putAll(
    batches: NewEvent[][],
  ): Promise<Outcome<{ batches: number; events: number; hasSetImmediate: boolean }>>;
  read(feed: string, after?: string): Promise<Outcome<EventReport[]>>;
  /** Starts following `feed` after `after`; events collect in {@link EventAppPage.followed}. */
  follow(feed: string, after: string | undefined): void;
  followed(): EventReport[];
  /** The error that ended the follower, if one did (stopping it is not an error). */
  followError(): ErrorReport | undefined;
  stopFollowing(): void;
}

declare global {
  interface Window {
    eventApp: EventAppPage;
  }
}

let client: EventClient | undefined;
let followed: EventReport[] = [];
let followError: ErrorReport | undefined;
let following: AbortController | undefined;

const toReport = (event: FeedEvent): EventReport => ({
  eventId: event.eventId,
  eventType: event.eventType,
  eventSourceId: event.eventSourceId,
  eventReceived_str: event.eventReceived_str,
  data: event.data,
});

function requireClient(): EventClient {
  if (!client) throw new Error('eventApp.start() first');
  return client;
}

window.eventApp = {
  start(config) {
    const options: EventClientOptions = {
      eventUrl: config.eventUrl,
      auth: { token: () => config.readToken },
      signer: { privateKey: config.writerKeyPem, alg: 'RS256' },
    };
    client = createEventClient(options);
    return Object.keys(options);
  },
  nativeFetch: () => isNative(globalThis.fetch),
  put: (events, otherKeyPem) =>
    outcome(async () => {
      await requireClient().put(
        events,
        otherKeyPem === undefined ? {} : { signer: { privateKey: otherKeyPem } },
      );
      return null;
    }),
  putAll: (batches) =>
    outcome(async () => ({
      ...(await requireClient().putAll(batches)),
      hasSetImmediate: 'setImmediate' in globalThis,
    })),
  read: (feed, after) =>
    outcome(async () =>
      (
        await requireClient().collect(feed, {
          limit: 100,
          ...(after === undefined ? {} : { after }),
        })
      ).map(toReport),
    ),
  follow(feed, after) {
    following?.abort();
    const controller = new AbortController();
    following = controller;
    followed = [];
    followError = undefined;
    void (async () => {
      try {
        for await (const event of requireClient().follow(feed, {
          ...(after === undefined ? {} : { after }),
          signal: controller.signal,
        })) {
          followed.push(toReport(event));
        }
      } catch (error) {
        if (!controller.signal.aborted) followError = reportError(error);
      }
    })();
  },
  followed: () => followed,
  followError: () => followError,
  stopFollowing() {
    following?.abort();
    following = undefined;
  },
};
