import type { WireNames } from '../config/options.js';
import { ApiError } from './api-error.js';

/** How long a browser may cache a preflight answer, in seconds (docs/protocol.md "Browsers"). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Methods a preflight allows. */
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/**
 * Response headers a cross-origin page may read besides the CORS-safelisted ones; `Date` since
 * the third wave (the SDK reads the services' time from it).
 */
const EXPOSED_HEADERS = 'Retry-After, WWW-Authenticate, Date';

/** Host names that are the machine itself, as `URL.hostname` writes them. */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The admin API's lockdown (docs/mock-server.md "Admin lockdown"). */
export interface AdminLockdownOptions {
  /** Host names allowed besides the loopback names and the public URL's (`--allowed-host`). */
  allowedHosts: ReadonlySet<string>;
  /** The server's public base URL, read per request (it is known only once listening). */
  publicUrl: () => string;
}

/** Options of {@link createCorsPolicy}. */
export interface CorsPolicyOptions {
  /** Allowed origins; undefined allows any origin. */
  origins: ReadonlySet<string> | undefined;
  /** The wire names of the two vendor headers a browser may send. */
  wireNames: Pick<WireNames, 'apiKeyHeader' | 'signingKeyIdHeader'>;
  /** Lock `/admin` to loopback origins and known hosts; undefined when the admin API is off. */
  admin?: AdminLockdownOptions;
}

/** Whether `url` (a request target) is under `/admin`. */
export function isAdminPath(url: string): boolean {
  return url === '/admin' || url.startsWith('/admin/') || url.startsWith('/admin?');
}

/** Whether `origin` is `http(s)://127.0.0.1`, `localhost` or `[::1]`, on any port. */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname)
  );
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), lower-case. */
function hostNameOf(host: string): string {
  const text = host.trim().toLowerCase();
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    return end < 0 ? text : text.slice(0, end + 1);
  }
  const colon = text.indexOf(':');
  return colon < 0 ? text : text.slice(0, colon);
}

/** The `host:port` of an origin, lower-case, or undefined when it is not a URL (`null`). */
function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The request parts the admin lockdown reads. */
interface RequestLike {
  url: string;
  headers: { host?: string | undefined; origin?: string | undefined };
}

/**
 * Which CORS headers an answer carries. One policy serves the routes, the preflights, the
 * framework's own answers (bad URLs) and the answers written straight to the socket (requests
 * Node cannot parse, request timeouts, `CONNECT`), so every answer of the server agrees.
 */
export interface CorsPolicy {
  /**
   * Whether a page from `origin` may read the answer to `url` (any origin unless a list was
   * given; under `/admin` with the admin API on, loopback origins and the listed ones only).
   */
  allows(origin: string, url?: string): boolean;
  /**
   * Headers for an answer to a request for `url` with this `Origin` header (undefined: none
   * sent): `Vary: Origin` always; `Access-Control-Allow-Origin` (the origin itself, or `*` for a
   * request without one when any origin is allowed) and `Access-Control-Expose-Headers` when
   * allowed.
   */
  headersFor(origin: string | undefined, url?: string): Record<string, string>;
  /**
   * Why a request to the admin API must be refused (403 `forbidden`), or undefined: its `Host`
   * is not a loopback name, the public URL's host or an allowed host (DNS rebinding), or its
   * `Origin` is another site's (not loopback, not listed, not the server's own).
   */
  refuseAdmin(request: RequestLike): ApiError | undefined;
  /** Extra headers of a preflight answer: allowed methods and headers, max age. */
  readonly preflightHeaders: Readonly<Record<string, string>>;
}

/**
 * Creates the CORS policy of the server.
 *
 * @example
 * const cors = createCorsPolicy({ origins: undefined, wireNames: DEFAULT_WIRE_NAMES });
 * reply.headers(cors.headersFor(request.headers.origin));
 */
export function createCorsPolicy(options: CorsPolicyOptions): CorsPolicy {
  const { origins, wireNames, admin } = options;
  const locked = (url: string | undefined) =>
    admin !== undefined && url !== undefined && isAdminPath(url);
  const allowsAdmin = (origin: string) => isLoopbackOrigin(origin) || origins?.has(origin) === true;
  const allows = (origin: string, url?: string) =>
    locked(url) ? allowsAdmin(origin) : origins === undefined || origins.has(origin);
  const hostAllowed = (host: string) => {
    const name = hostNameOf(host);
    if (LOOPBACK_NAMES.has(name) || admin?.allowedHosts.has(name)) return true;
    try {
      return new URL(admin?.publicUrl() ?? '').hostname === name;
    } catch {
      return false;
    }
  };
  const preflightHeaders = Object.freeze({
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': [
      'Authorization',
      'Content-Type',
      'Accept',
      wireNames.apiKeyHeader,
      wireNames.signingKeyIdHeader,
    ].join(', '),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  });
  return {
    allows,
    preflightHeaders,
    refuseAdmin({ url, headers }) {
      if (!locked(url)) return undefined;
      const { host, origin } = headers;
      if (host !== undefined && !hostAllowed(host)) {
        return new ApiError(
          403,
          'forbidden',
          `Host ${host.slice(0, 200)} may not use the admin API (loopback names, the --public-url host and --allowed-host only)`,
        );
      }
      // The console's own requests are same-origin: allowed on any host that passed above.
      const sameOrigin =
        origin !== undefined && host !== undefined && hostOf(origin) === host.toLowerCase();
      if (origin !== undefined && !sameOrigin && !allowsAdmin(origin)) {
        return new ApiError(
          403,
          'forbidden',
          `Origin ${origin.slice(0, 200)} may not use the admin API (loopback origins and --cors-origin only)`,
        );
      }
      return undefined;
    },
    headersFor(origin, url) {
      // No `*` under /admin: a browser's cross-origin request always carries an Origin.
      const granted =
        origin === undefined
          ? origins === undefined && !locked(url)
            ? '*'
            : undefined
          : allows(origin, url)
            ? origin
            : undefined;
      if (granted === undefined) return { vary: 'Origin' };
      return {
        vary: 'Origin',
        'access-control-allow-origin': granted,
        'access-control-expose-headers': EXPOSED_HEADERS,
      };
    },
  };
}
