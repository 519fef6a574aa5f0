// The `fetch` each simulated app hands its SDK client: it records every request (service, route,
// start, time to headers, outcome, the client's state) and sends it through the worker's Agent.
import {
  FLAG,
  type FleetRecorder,
  NETWORK_OUTCOMES,
  type RouteName,
  type ServiceName,
} from './fleet-records.js';

/** What {@link createCountingFetch} needs. */
export interface CountingFetchOptions {
  mainUrl: string;
  standbyUrl: string;
  app: number;
  recorder: Pick<FleetRecorder, 'request'>;
  /** Ms from the run's start. */
  now: () => number;
  /** The client's state (FLAG bits) when a request starts. */
  flags: () => number;
  /**
   * Told of every request as it starts (an app counts the main requests of its call); `probe` is
   * a main request without credentials, which only Strategy B's probe of main sends.
   */
  onRequest?: (service: ServiceName, request: { probe: boolean }) => void;
  /** The worker's undici Agent, shared by every client of the worker. Default: Node's global one. */
  dispatcher?: unknown;
  /** The fetch underneath. Default: the global `fetch`, looked up at call time. */
  fetch?: typeof fetch;
}

const ROUTE_BY_PATH: ReadonlyArray<[string, RouteName]> = [
  ['/authz/.jwt', 'authz'],
  ['/.well-known/jwks.json', 'jwks'],
  ['/enabled', 'enabled'],
];

function hasAuthorization(input: RequestInfo | URL, init: RequestInit | undefined): boolean {
  const headers = init?.headers ?? (input instanceof Request ? input.headers : undefined);
  if (!headers) return false;
  if (headers instanceof Headers) return headers.has('authorization');
  const names = Array.isArray(headers) ? headers.map(([name]) => name) : Object.keys(headers);
  return names.some((name) => name.toLowerCase() === 'authorization');
}

function routeOf(path: string): RouteName {
  for (const [prefix, route] of ROUTE_BY_PATH) if (path.startsWith(prefix)) return route;
  return 'other';
}

const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ECONNABORTED',
]);

/** The network outcome of a failed fetch: refused, reset, timeout, aborted or other. */
export function classifyFetchFailure(error: unknown, signal: AbortSignal | undefined): number {
  if (signal?.aborted) {
    const name = (signal.reason as { name?: unknown } | undefined)?.name;
    return name === 'TimeoutError' ? NETWORK_OUTCOMES.timeout : NETWORK_OUTCOMES.aborted;
  }
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return NETWORK_OUTCOMES.refused;
    if (typeof code === 'string' && RESET_CODES.has(code)) return NETWORK_OUTCOMES.reset;
    e = (e as { cause?: unknown }).cause;
  }
  return NETWORK_OUTCOMES.other;
}

/**
 * Creates a counting `fetch`: the request goes out unchanged (through `dispatcher` when given)
 * and one {@link RequestRecord} per request is appended to `recorder` once its headers (or its
 * failure) came back. Requests to neither base URL are recorded as service `other`.
 *
 * @example
 * const fetch = createCountingFetch({ mainUrl, standbyUrl, app: 3, recorder, now, flags: () => 0 });
 * const client = createLicensingClient({ mainUrl, standbyUrl, fetch, ...rest });
 */
export function createCountingFetch(options: CountingFetchOptions): typeof fetch {
  const { mainUrl, standbyUrl, app, recorder, now, flags, onRequest, dispatcher } = options;
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const service: ServiceName = url.startsWith(`${mainUrl}/`)
      ? 'main'
      : url.startsWith(`${standbyUrl}/`)
        ? 'standby'
        : 'other';
    const base = service === 'main' ? mainUrl : service === 'standby' ? standbyUrl : '';
    const route = routeOf((base ? url.slice(base.length) : new URL(url).pathname).split('?')[0]!);
    const probe = service === 'main' && !hasAuthorization(input, init);
    const state = flags() | (probe ? FLAG.probe : 0);
    onRequest?.(service, { probe });
    const t = now();
    const record = (outcome: number) =>
      recorder.request({ t, dur: now() - t, app, service, route, outcome, flags: state });
    const fetchImpl = options.fetch ?? globalThis.fetch;
    try {
      const response = await fetchImpl(
        input,
        dispatcher === undefined ? init : ({ ...init, dispatcher } as RequestInit),
      );
      record(response.status);
      return response;
    } catch (error) {
      record(classifyFetchFailure(error, init?.signal ?? undefined));
      throw error;
    }
  };
}
