import { type HttpHandler, HttpResponse, http } from 'msw';
import { failService } from './fail-service.js';
import { createFailureResponse, type Failure } from './failure.js';
import { assertCount } from './internal/assert-count.js';
import { routeOf, routePatterns, trimBase } from './internal/service-url.js';
import { answerPass, type PassBehaviour } from './pass.js';
import { passthroughService } from './passthrough-service.js';
import {
  STANDBY_DORMANT_BODY,
  standbyAbsent,
  standbyDisabled,
  standbyDormant,
  standbyEnabled,
} from './standby-states.js';

/**
 * What the standby does in a scenario:
 * `'passthrough'` (default) sends its requests to the real server, `'next'` leaves them to
 * handlers you add after the scenario's, and the other names apply the matching `standby…`
 * factory.
 */
export type StandbyBehaviour =
  | 'passthrough'
  | 'next'
  | 'enabled'
  | 'disabled'
  | 'dormant'
  | 'absent';

/** Base URLs and standby behaviour shared by the scenarios. */
export interface ScenarioOptions {
  /** Base URL of the main licensing service. */
  mainUrl: string | URL;
  /** Base URL of the standby service. Without it the scenario leaves the standby alone. */
  standbyUrl?: string | URL;
  /** What the standby does. Default `'passthrough'`. */
  standby?: StandbyBehaviour;
  /** Management API-key header name (such calls are never intercepted). Default `'Service-ApiKey'`. */
  apiKeyHeader?: string;
}

function standbyHandlers(options: ScenarioOptions): HttpHandler[] {
  const { standbyUrl, standby = 'passthrough' } = options;
  if (standbyUrl === undefined || standby === 'next') return [];
  const stateOptions =
    options.apiKeyHeader === undefined ? {} : { apiKeyHeader: options.apiKeyHeader };
  switch (standby) {
    case 'passthrough':
      return passthroughService(standbyUrl);
    case 'enabled':
      return standbyEnabled(standbyUrl, stateOptions);
    case 'disabled':
      return standbyDisabled(standbyUrl, stateOptions);
    case 'dormant':
      return standbyDormant(standbyUrl, stateOptions);
    case 'absent':
      return standbyAbsent(standbyUrl);
    default:
      throw new TypeError(`Unknown standby behaviour: ${String(standby satisfies never)}`);
  }
}

/** Options of {@link mainDown}. */
export interface MainDownOptions extends ScenarioOptions {
  /** How the main service fails. Default `'refused'`. */
  failure?: Failure;
}

/**
 * Drill "main down for the whole test": every main request fails the same way; the standby
 * behaves as `standby` says (real server by default).
 *
 * @example
 * server.use(...mainDown({ mainUrl, standbyUrl, failure: 'unavailable' }));
 */
export function mainDown(options: MainDownOptions): HttpHandler[] {
  return [
    ...failService(options.mainUrl, options.failure ?? 'refused'),
    ...standbyHandlers(options),
  ];
}

/** Options of {@link mainFlaps}. */
export interface MainFlapsOptions extends ScenarioOptions {
  /** How the main service fails while down. Default `'refused'`. */
  failure?: Failure;
  /** Failing requests in each down phase. Default `1`. */
  failures?: number;
  /**
   * Answered requests in each up phase. Default `1` (fail, pass, fail, pass, ...). `Infinity`:
   * one down phase of `failures` requests, then recovered for good.
   */
  passes?: number;
  /** What main requests get while up. Default `'passthrough'`. */
  pass?: PassBehaviour;
}

/**
 * Drill "main flaps": main requests (all routes, in arrival order) cycle through `failures`
 * failures then `passes` answered requests. The count is exact: with the defaults, requests 1,
 * 3, 5, ... fail and 2, 4, 6, ... pass.
 *
 * @example
 * // Three refused connections, then main is back for good.
 * server.use(...mainFlaps({ mainUrl, standbyUrl, failures: 3, passes: Infinity }));
 */
export function mainFlaps(options: MainFlapsOptions): HttpHandler[] {
  const failures = assertCount('failures', options.failures ?? 1);
  const passes = assertCount('passes', options.passes ?? 1, true);
  if (failures + passes === 0) throw new TypeError('failures and passes cannot both be 0');
  const failure = options.failure ?? 'refused';
  const pass = options.pass ?? 'passthrough';
  let seen = 0;
  const main = routePatterns(options.mainUrl).map((pattern) =>
    http.all(pattern, ({ request }) => {
      const index = seen++;
      const position = passes === Number.POSITIVE_INFINITY ? index : index % (failures + passes);
      if (position < failures) return createFailureResponse(failure, request);
      return answerPass(pass, request);
    }),
  );
  return [...main, ...standbyHandlers(options)];
}

/** Options of {@link standbySwitchedOffMidOutage}. */
export interface StandbySwitchedOffOptions extends Omit<ScenarioOptions, 'standby'> {
  standbyUrl: string | URL;
  /** `/authz/.jwt` calls the standby serves (any method) before it is switched off. Required. */
  enabledCalls: number;
  /** How the main service fails throughout. Default `'refused'`. */
  mainFailure?: Failure;
  /**
   * The standby once switched off: `'dormant'` (default; status checks report disabled,
   * `/authz/.jwt` and JWKS answer 403 `standby_dormant`) or `'absent'` (network errors).
   */
  off?: 'dormant' | 'absent';
  /** What standby requests get while it is on. Default `'passthrough'`. */
  pass?: PassBehaviour;
}

/**
 * Drill "standby switched off mid-outage": main fails throughout; the standby serves the first
 * `enabledCalls` `/authz/.jwt` calls (passing them and every other standby request on), then is
 * switched off: from the next `/authz/.jwt` call on, every standby request gets the `off`
 * answer. Management calls are never intercepted.
 *
 * @example
 * // Two leases from the standby, then it goes dormant: Strategy B must move back to main.
 * server.use(...standbySwitchedOffMidOutage({ mainUrl, standbyUrl, enabledCalls: 2 }));
 */
export function standbySwitchedOffMidOutage(options: StandbySwitchedOffOptions): HttpHandler[] {
  const enabledCalls = assertCount('enabledCalls', options.enabledCalls);
  const base = trimBase(options.standbyUrl);
  const apiKeyHeader = options.apiKeyHeader ?? 'Service-ApiKey';
  const off = options.off ?? 'dormant';
  const pass = options.pass ?? 'passthrough';
  let served = 0;
  let switchedOff = enabledCalls === 0;

  const answerOff = (request: Request, route: string) => {
    if (off === 'absent') return HttpResponse.error();
    const method = request.method.toUpperCase();
    if (route === '/authz/.jwt' || (route === '/.well-known/jwks.json' && method === 'GET')) {
      return HttpResponse.json(STANDBY_DORMANT_BODY, { status: 403 });
    }
    if (method === 'GET' && (route === '/enabled' || route === '/disabled')) {
      return HttpResponse.json(route === '/disabled');
    }
    return answerPass(pass, request);
  };

  const standby = http.all(`${base}/*`, ({ request }) => {
    if (request.headers.has(apiKeyHeader)) return answerPass(pass, request);
    const route = routeOf(base, request.url) ?? '/';
    if (!switchedOff && route === '/authz/.jwt') {
      served += 1;
      if (served > enabledCalls) switchedOff = true;
    }
    if (switchedOff) return answerOff(request, route);
    return answerPass(pass, request);
  });
  return [...failService(options.mainUrl, options.mainFailure ?? 'refused'), standby];
}
