import { type HttpHandler, HttpResponse, http } from 'msw';
import type { ServiceRouteOptions } from './fail-service.js';
import { sleep } from './internal/abort.js';
import { assertCount } from './internal/assert-count.js';
import { routePatterns } from './internal/service-url.js';
import { answerPass, type PassBehaviour } from './pass.js';

/** Options of {@link delayService}. */
export interface DelayServiceOptions extends ServiceRouteOptions {
  /** How long each request waits before it is answered, in milliseconds. Required. */
  delayMs: number;
  /** What the request gets after the wait. Default `'passthrough'`. */
  pass?: PassBehaviour;
}

/**
 * Handlers that hold every request for `delayMs` before answering it (a slow but working
 * service). The wait uses `setTimeout`, so vitest fake timers advance it, and ends early when the
 * request's `signal` aborts (the client then sees its own abort reason).
 *
 * @example
 * // Slower than a 2 s per-attempt timeout, so each attempt times out.
 * server.use(...delayService(mainUrl, { delayMs: 5_000 }));
 */
export function delayService(baseUrl: string | URL, options: DelayServiceOptions): HttpHandler[] {
  const delayMs = assertCount('delayMs', options.delayMs);
  const pass = options.pass ?? 'passthrough';
  return routePatterns(baseUrl, options.paths).map((pattern) =>
    http.all(pattern, async ({ request }) => {
      const elapsed = await sleep(delayMs, request.signal);
      // Aborted: the client already rejected; this only ends the handler.
      if (!elapsed) return HttpResponse.error();
      return answerPass(pass, request);
    }),
  );
}
