import type { HttpHandler } from 'msw';
import { type DelayServiceOptions, delayService } from './delay-service.js';
import { failService, type ServiceRouteOptions } from './fail-service.js';
import { type FlakyServiceOptions, flakyService } from './flaky-service.js';

// Sugar over failService / flakyService / delayService for the main licensing service: one
// factory per way the SDK classifies the main service as failing (issue 4). Each breaks every
// route under the base URL (`/authz/.jwt`, `/.well-known/jwks.json`,
// `/licensing/actions/checkout`, ...) for any method unless `paths` narrows it.

/**
 * Main service refuses connections: `fetch` rejects with a `TypeError`.
 *
 * @param mainUrl - the main service's base URL.
 * @example
 * server.use(...mainRefused('https://licensing.example.com'));
 */
export function mainRefused(
  mainUrl: string | URL,
  options: ServiceRouteOptions = {},
): HttpHandler[] {
  return failService(mainUrl, 'refused', options);
}

/**
 * Main service resets connections. Through `fetch` this is the same `TypeError` as a refused
 * connection; the SDK treats both as a network error.
 *
 * @example
 * server.use(...mainReset(mainUrl));
 */
export function mainReset(mainUrl: string | URL, options: ServiceRouteOptions = {}): HttpHandler[] {
  return failService(mainUrl, 'reset', options);
}

/**
 * Main service's host name does not resolve: `fetch` rejects with a `TypeError` whose `cause`
 * has `code: 'ENOTFOUND'` (Node; in browsers a plain network error).
 *
 * @example
 * server.use(...mainDnsFailure(mainUrl));
 * await fetch(`${mainUrl}/authz/.jwt`).catch((err) => err.cause.code); // 'ENOTFOUND'
 */
export function mainDnsFailure(
  mainUrl: string | URL,
  options: ServiceRouteOptions = {},
): HttpHandler[] {
  return failService(mainUrl, 'dns', options);
}

/**
 * Main service accepts requests and never answers; each request settles only when its
 * `signal` aborts (the SDK's per-attempt timeout). Pair with fake timers to keep tests fast.
 *
 * @example
 * server.use(...mainHang(mainUrl));
 * const controller = new AbortController();
 * const pending = fetch(`${mainUrl}/authz/.jwt`, { signal: controller.signal });
 * controller.abort(); // pending rejects with the AbortError
 */
export function mainHang(mainUrl: string | URL, options: ServiceRouteOptions = {}): HttpHandler[] {
  return failService(mainUrl, 'hang', options);
}

/** Options of {@link mainServerError}. */
export interface MainServerErrorOptions extends ServiceRouteOptions {
  /** Status to answer with: 500, 502, 503, 504 or any other. Default `503`. */
  status?: number;
}

/**
 * Main service answers a 5xx with an HTML error page (a proxy in front of a dead backend).
 *
 * @example
 * server.use(...mainServerError(mainUrl, { status: 500 }));
 */
export function mainServerError(
  mainUrl: string | URL,
  options: MainServerErrorOptions = {},
): HttpHandler[] {
  const { status = 503, ...rest } = options;
  if (status === 500) return failService(mainUrl, 'server-error', rest);
  if (status === 503) return failService(mainUrl, 'unavailable', rest);
  return failService(mainUrl, { status }, rest);
}

/** Options of {@link mainRateLimited}. */
export interface MainRateLimitedOptions extends ServiceRouteOptions {
  /** `Retry-After` value: seconds, or an HTTP date string. Default `1`. */
  retryAfter?: number | string;
}

/**
 * Main service answers 429 with `Retry-After` and an ApiError body.
 *
 * @example
 * server.use(...mainRateLimited(mainUrl, { retryAfter: 30 }));
 */
export function mainRateLimited(
  mainUrl: string | URL,
  options: MainRateLimitedOptions = {},
): HttpHandler[] {
  return failService(mainUrl, 'rate-limited', options);
}

/**
 * Main service answers 200 with an HTML login page instead of a JWT (a captive portal or a
 * misconfigured proxy). The SDK must treat it as a failure, not as a token.
 *
 * @example
 * server.use(...mainCaptivePortal(mainUrl));
 */
export function mainCaptivePortal(
  mainUrl: string | URL,
  options: ServiceRouteOptions = {},
): HttpHandler[] {
  return failService(mainUrl, 'captive-portal', options);
}

/**
 * Main service fails exactly the first `failures` requests, then recovers (passthrough to the
 * real server by default, or `pass`).
 *
 * @example
 * server.use(...mainFlaky(mainUrl, { failures: 2, failure: 'unavailable' }));
 */
export function mainFlaky(mainUrl: string | URL, options: FlakyServiceOptions): HttpHandler[] {
  return flakyService(mainUrl, options);
}

/**
 * Main service answers every request after a fixed delay (passthrough by default, or `pass`).
 *
 * @example
 * server.use(...mainDelay(mainUrl, { delayMs: 10_000 }));
 */
export function mainDelay(mainUrl: string | URL, options: DelayServiceOptions): HttpHandler[] {
  return delayService(mainUrl, options);
}
