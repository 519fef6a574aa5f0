import type { BrowserContext, Request } from 'playwright-core';

/** One request a page made, as the browser's network layer saw it. */
export interface LoggedRequest {
  method: string;
  url: string;
  /** The `Origin` header the browser sent, when it sent one. */
  origin: string | undefined;
  /** Playwright's resource type: `document`, `script`, `fetch`, ... */
  resourceType: string;
}

/** What {@link logRequests} returns. */
export interface RequestLog {
  /** Every request seen so far, oldest first (headers resolved). */
  entries(): Promise<LoggedRequest[]>;
  /** The requests whose URL starts with `prefix` (an origin or a base URL). */
  to(prefix: string): Promise<LoggedRequest[]>;
  /** Forgets what was logged. */
  clear(): void;
  /** Stops logging. */
  stop(): void;
}

/**
 * Logs every request the pages of `context` make (from the network layer, so a request the page
 * script never awaited or that CORS refused is logged too; preflights are not).
 */
export function logRequests(context: BrowserContext): RequestLog {
  // Settled at once, so a header read that fails because the page closed first (the test is done
  // with the log) is no unhandled rejection; a caller who does read the log still gets the error.
  let pending: Promise<LoggedRequest | { error: unknown }>[] = [];
  const onRequest = (request: Request) => {
    pending.push(
      request.headerValue('origin').then(
        (origin) => ({
          method: request.method(),
          url: request.url(),
          origin: origin ?? undefined,
          resourceType: request.resourceType(),
        }),
        (error: unknown) => ({ error }),
      ),
    );
  };
  context.on('request', onRequest);
  const entries = async () =>
    (await Promise.all(pending)).map((entry) => {
      if ('error' in entry) throw entry.error;
      return entry;
    });
  return {
    entries,
    to: async (prefix) => (await entries()).filter((entry) => entry.url.startsWith(prefix)),
    clear: () => {
      pending = [];
    },
    stop: () => context.off('request', onRequest),
  };
}
