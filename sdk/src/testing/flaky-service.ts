import { type HttpHandler, http } from 'msw';
import type { ServiceRouteOptions } from './fail-service.js';
import { createFailureResponse, type Failure } from './failure.js';
import { assertCount } from './internal/assert-count.js';
import { routePatterns } from './internal/service-url.js';
import { answerPass, type PassBehaviour } from './pass.js';

/** Options of {@link flakyService}. */
export interface FlakyServiceOptions extends ServiceRouteOptions {
  /** How many requests fail before the service recovers. Required; a non-negative integer. */
  failures: number;
  /** How they fail. Default `'refused'`. */
  failure?: Failure;
  /** What the requests after the failures get. Default `'passthrough'`. */
  pass?: PassBehaviour;
  /** `Retry-After` sent with `'rate-limited'`. Default `1`. */
  retryAfter?: number | string;
}

/**
 * Handlers that fail exactly the first `failures` requests to the service (counted across all
 * matched routes and methods, in arrival order), then let every later one through.
 *
 * @example
 * // Two refused connections, then the real server answers.
 * server.use(...flakyService(mainUrl, { failures: 2, failure: 'refused' }));
 */
export function flakyService(baseUrl: string | URL, options: FlakyServiceOptions): HttpHandler[] {
  const failures = assertCount('failures', options.failures);
  const failure = options.failure ?? 'refused';
  const pass = options.pass ?? 'passthrough';
  const retryAfter = options.retryAfter ?? 1;
  let seen = 0;
  return routePatterns(baseUrl, options.paths).map((pattern) =>
    http.all(pattern, ({ request }) => {
      seen += 1;
      if (seen <= failures) return createFailureResponse(failure, request, retryAfter);
      return answerPass(pass, request);
    }),
  );
}
