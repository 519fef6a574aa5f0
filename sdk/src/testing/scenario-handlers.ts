import type { HttpHandler } from 'msw';
import { delayService } from './delay-service.js';
import { failService } from './fail-service.js';
import type { PassBehaviour } from './pass.js';
import { isScenarioName, type ScenarioName, scenarioNames } from './scenario-names.js';

/** Options of {@link scenarioHandlers}: the services' base URLs. */
export interface ScenarioHandlersOptions {
  /** Base URL of the main licensing service, e.g. `http://127.0.0.1:8787/main`. */
  mainUrl: string | URL;
  /** Base URL of the standby service. */
  standbyUrl: string | URL;
  /** Base URL of the ID-token issuer. Required by `idp-down`. */
  idpUrl?: string | URL;
  /** Base URL of the event data service. Required by `events-down`. */
  eventUrl?: string | URL;
  /**
   * What a request delayed by `standby-slow` gets after the wait: `'passthrough'` (default; the
   * real server), `'next'` (the handler you put after these) or your own answer.
   */
  pass?: PassBehaviour;
}

/** How long `standby-slow` holds each standby request, in ms (the mock's fault too). */
const STANDBY_SLOW_DELAY_MS = 2_500;

function required(
  name: ScenarioName,
  option: 'idpUrl' | 'eventUrl',
  url: string | URL | undefined,
) {
  if (url === undefined) throw new TypeError(`scenarioHandlers('${name}') needs ${option}`);
  return url;
}

/**
 * The msw handlers of a named drill: the same services broken the same way as the mock server's
 * `POST /admin/scenarios/<name>` does (see {@link scenarioNames}). They cover only what the drill
 * breaks: put them in front of the handlers of the healthy services (`server.use(...)`, or
 * `passthroughService(url)` for a real server), as a drill on the mock leaves those alone.
 *
 * @param name - one of {@link scenarioNames}; anything else throws a `TypeError`.
 * @param options - the base URLs; `idpUrl` for `idp-down`, `eventUrl` for `events-down`.
 * @example
 * server.use(...scenarioHandlers('main-jwks-outage', { mainUrl, standbyUrl }));
 * // the same drill against a running mock server:
 * await fetch(`${adminUrl}/scenarios/main-jwks-outage`, { method: 'POST' });
 */
export function scenarioHandlers(
  name: ScenarioName,
  options: ScenarioHandlersOptions,
): HttpHandler[] {
  if (typeof name !== 'string' || !isScenarioName(name)) {
    throw new TypeError(
      `Unknown scenario ${JSON.stringify(name)}; one of ${scenarioNames.join(', ')}`,
    );
  }
  const { mainUrl, standbyUrl } = options;
  switch (name) {
    case 'main-down':
      return failService(mainUrl, 'reset');
    case 'main-hang':
      return failService(mainUrl, 'hang');
    case 'main-503':
      return failService(mainUrl, 'unavailable');
    case 'main-rate-limited':
      return failService(mainUrl, 'rate-limited', { retryAfter: 1 });
    case 'main-jwks-outage':
      return failService(mainUrl, 'unavailable', { paths: ['/.well-known/jwks.json'] });
    case 'idp-down':
      return failService(required(name, 'idpUrl', options.idpUrl), 'reset');
    case 'captive-portal':
      return failService(mainUrl, 'captive-portal');
    case 'standby-slow':
      return delayService(standbyUrl, {
        delayMs: STANDBY_SLOW_DELAY_MS,
        ...(options.pass === undefined ? {} : { pass: options.pass }),
      });
    case 'standby-down':
      return failService(standbyUrl, 'reset');
    case 'events-down':
      return failService(required(name, 'eventUrl', options.eventUrl), 'reset');
    default:
      throw new TypeError(`Unknown scenario: ${String(name satisfies never)}`);
  }
}
