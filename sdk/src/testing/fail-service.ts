import { type HttpHandler, http } from 'msw';
import { createFailureResponse, type Failure } from './failure.js';
import { routePatterns } from './internal/service-url.js';

/** Options shared by the handler factories that break a service. */
export interface ServiceRouteOptions {
  /**
   * Routes to break, relative to the base URL (e.g. `['/authz/.jwt']`). Default `['*']`: every
   * route of the service, for any method, as in a real outage.
   */
  paths?: readonly string[];
}

/** Options of {@link failService}. */
export interface FailServiceOptions extends ServiceRouteOptions {
  /** `Retry-After` sent with `'rate-limited'`: seconds or an HTTP date. Default `1`. */
  retryAfter?: number | string;
}

/**
 * Handlers that make every request to the service at `baseUrl` fail in the given way, for as
 * long as they are installed. The building block of the `main…` and `standby…` factories.
 *
 * @param baseUrl - the service's base URL, e.g. `https://licensing.example.com` or
 *   `http://127.0.0.1:8787/main`.
 * @param failure - how to fail; see {@link FailureMode}.
 * @example
 * server.use(...failService('https://licensing.example.com', 'unavailable'));
 * await fetch('https://licensing.example.com/authz/.jwt?ItemA'); // 503 with an HTML page
 */
export function failService(
  baseUrl: string | URL,
  failure: Failure,
  options: FailServiceOptions = {},
): HttpHandler[] {
  const retryAfter = options.retryAfter ?? 1;
  return routePatterns(baseUrl, options.paths).map((pattern) =>
    http.all(pattern, ({ request }) => createFailureResponse(failure, request, retryAfter)),
  );
}
