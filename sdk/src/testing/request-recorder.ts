import { routeOf, trimBase } from './internal/service-url.js';

/** One request seen by a {@link RequestRecorder}. */
export interface RecordedRequest {
  /** The service name it was registered under, e.g. `'main'`. */
  service: string;
  /** Path relative to that service's base URL, e.g. `'/authz/.jwt'`. */
  route: string;
  /** Upper-case HTTP method. */
  method: string;
  /** The full URL, query string included. */
  url: string;
}

/** Which requests {@link RequestRecorder.count} counts; every given field must match. */
export interface RequestFilter {
  service?: string;
  route?: string;
  method?: string;
}

/**
 * The part of an msw `setupServer()` / `setupWorker()` instance the recorder uses: its
 * life-cycle events.
 */
export interface RecorderTarget {
  events: {
    on(type: 'request:start', listener: (event: { request: Request }) => void): unknown;
    removeListener(type: 'request:start', listener: (event: { request: Request }) => void): unknown;
  };
}

/** Counts requests per service and route, so tests can assert e.g. "zero main attempts". */
export interface RequestRecorder {
  /** Every recorded request, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Number of recorded requests matching `filter` (all of them without one). */
  count(filter?: RequestFilter): number;
  /**
   * Records every request `target` (an msw server or worker) sees from now on, whichever
   * handler answers it, passthrough included. Returns a function that stops recording.
   */
  attach(target: RecorderTarget): () => void;
  /** Records one request by hand; requests outside every registered service are ignored. */
  record(request: Request): void;
  /** Forgets every recorded request. */
  reset(): void;
}

/**
 * Creates a request recorder for the given services (name → base URL). A request belongs to
 * the service with the longest base URL that contains it; others are not recorded.
 *
 * @param services - e.g. `{ main: mainUrl, standby: standbyUrl }`.
 * @example
 * const recorder = createRequestRecorder({ main: mainUrl, standby: standbyUrl });
 * recorder.attach(server);
 * await client.checkout(['ItemA']);
 * expect(recorder.count({ service: 'main' })).toBe(0);
 * expect(recorder.count({ service: 'standby', route: '/authz/.jwt' })).toBe(1);
 */
export function createRequestRecorder(
  services: Readonly<Record<string, string | URL>>,
): RequestRecorder {
  const bases = Object.entries(services)
    .map(([name, url]) => ({ name, base: trimBase(url) }))
    .sort((a, b) => b.base.length - a.base.length);
  const requests: RecordedRequest[] = [];

  const record = (request: Request) => {
    for (const { name, base } of bases) {
      const route = routeOf(base, request.url);
      if (route === undefined) continue;
      requests.push({
        service: name,
        route,
        method: request.method.toUpperCase(),
        url: request.url,
      });
      return;
    }
  };

  return {
    get requests() {
      return requests;
    },
    count(filter = {}) {
      const method = filter.method?.toUpperCase();
      return requests.filter(
        (entry) =>
          (filter.service === undefined || entry.service === filter.service) &&
          (filter.route === undefined || entry.route === filter.route) &&
          (method === undefined || entry.method === method),
      ).length;
    },
    attach(target) {
      const listener = ({ request }: { request: Request }) => record(request);
      target.events.on('request:start', listener);
      return () => {
        target.events.removeListener('request:start', listener);
      };
    },
    record,
    reset() {
      requests.length = 0;
    },
  };
}
