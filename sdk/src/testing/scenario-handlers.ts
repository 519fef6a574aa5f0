import type { HttpHandler } from 'msw';
import { argument } from '../internal/validate-option.js';
import { delayService } from './delay-service.js';
import { failService } from './fail-service.js';
import { type BrokenService, watchForMissedDrill } from './internal/drill-miss.js';
import { readBaseUrl } from './internal/service-url.js';
import type { PassBehaviour } from './pass.js';
import { isScenarioName, type ScenarioName, scenarioNames } from './scenario-names.js';

/**
 * Options of {@link scenarioHandlers}: the services' base URLs, as the app's client has them.
 * Other members are ignored, so a running mock server's `info` can be passed as it is.
 */
export interface ScenarioHandlersOptions {
  /** Base URL of the main licensing service, e.g. `http://127.0.0.1:8787/main`. Required. */
  mainUrl: string | URL;
  /** Base URL of the standby service. Required. */
  standbyUrl: string | URL;
  /** Base URL of the ID-token issuer. Required by `idp-down`. */
  idpUrl?: string | URL;
  /** Base URL of the event data service. Required by `events-down`. */
  eventUrl?: string | URL;
  /** How long `standby-slow` holds each standby request, in ms. Default 2 500 (the mock's). */
  delayMs?: number;
  /**
   * What a request delayed by `standby-slow` gets after the wait: `'next'` (default: the
   * handlers behind the drill, i.e. the fakes of `createFakeLicensing` or `passthroughService`
   * to a real server), `'passthrough'` (straight to the network) or your own answer.
   */
  pass?: PassBehaviour;
}

/** How long `standby-slow` holds each standby request by default, in ms (the mock's fault too). */
const STANDBY_SLOW_DELAY_MS = 2_500;

const URL_OPTIONS = {
  mainUrl: 'the main licensing service',
  standbyUrl: 'the standby licensing service',
  idpUrl: 'the ID-token issuer',
  eventUrl: 'the event data service',
} as const;
type UrlOption = keyof typeof URL_OPTIONS;

/** What each drill breaks (the services its handlers cover). */
const BROKEN: Record<ScenarioName, UrlOption> = {
  'main-down': 'mainUrl',
  'main-hang': 'mainUrl',
  'main-503': 'mainUrl',
  'main-rate-limited': 'mainUrl',
  'main-jwks-outage': 'mainUrl',
  'idp-down': 'idpUrl',
  'captive-portal': 'mainUrl',
  'standby-slow': 'standbyUrl',
  'standby-down': 'standbyUrl',
  'events-down': 'eventUrl',
};

function readPass(value: unknown): PassBehaviour {
  if (value === undefined) return 'next';
  if (value === 'next' || value === 'passthrough' || typeof value === 'function') {
    return value as PassBehaviour;
  }
  return argument.fail('pass', "Expected `pass` to be 'next', 'passthrough' or a function");
}

/** The drill's base URLs, checked: mainUrl and standbyUrl always, idpUrl/eventUrl when used. */
function readUrls(
  name: ScenarioName,
  o: Record<string, unknown>,
): Partial<Record<UrlOption, string>> {
  const urls: Partial<Record<UrlOption, string>> = {};
  for (const option of Object.keys(URL_OPTIONS) as UrlOption[]) {
    const value = o[option];
    const needed = option === 'mainUrl' || option === 'standbyUrl' || BROKEN[name] === option;
    if (value === undefined) {
      if (needed) {
        argument.fail(
          option,
          `scenarioHandlers('${name}') needs \`${option}\`, the base URL of ${URL_OPTIONS[option]} as the app's client has it.`,
        );
      }
      continue;
    }
    urls[option] = readBaseUrl(option, value);
  }
  return urls;
}

/**
 * The msw handlers of a named drill: the same services broken the same way as the mock server's
 * `POST /admin/scenarios/<name>` does (see {@link scenarioNames}). They cover only what the drill
 * breaks: put them in front of the healthy services (`server.use(...)` over the handlers of
 * `createFakeLicensing`, or over `passthroughService(url)` for a real server), and
 * `server.resetHandlers()` ends the drill. When the app sends a request to the broken service's
 * routes on another origin than the drill's URL (`localhost` versus `127.0.0.1`, another port),
 * the drill warns once (`console.warn`), naming both URLs.
 *
 * @param name - one of {@link scenarioNames}.
 * @param options - the base URLs (`idpUrl` for `idp-down`, `eventUrl` for `events-down`) and,
 *   for `standby-slow`, `delayMs` and `pass`.
 * @throws LicensingError `INVALID_ARGUMENT` for an unknown name or a missing or bad option,
 *   naming it.
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
    argument.fail(
      'name',
      `Unknown scenario ${JSON.stringify(name)}; one of ${scenarioNames.join(', ')}.`,
    );
  }
  if (typeof options !== 'object' || options === null) {
    argument.fail(
      'options',
      `scenarioHandlers('${name}') needs options: { mainUrl, standbyUrl } as the app's client has them.`,
    );
  }
  const o = options as unknown as Record<string, unknown>;
  const urls = readUrls(name, o);
  const delayMs = argument.number('delayMs', o.delayMs, STANDBY_SLOW_DELAY_MS, { integer: true });
  const pass = readPass(o.pass);
  const base = urls[BROKEN[name]]!;
  const handlers = ((): HttpHandler[] => {
    switch (name) {
      case 'main-down':
      case 'standby-down':
      case 'idp-down':
      case 'events-down':
        return failService(base, 'reset');
      case 'main-hang':
        return failService(base, 'hang');
      case 'main-503':
        return failService(base, 'unavailable');
      case 'main-rate-limited':
        return failService(base, 'rate-limited', { retryAfter: 1 });
      case 'main-jwks-outage':
        return failService(base, 'unavailable', { paths: ['/.well-known/jwks.json'] });
      case 'captive-portal':
        return failService(base, 'captive-portal');
      case 'standby-slow':
        return delayService(base, { delayMs, pass });
      default:
        throw new TypeError(`Unknown scenario: ${String(name satisfies never)}`);
    }
  })();
  const broken: BrokenService = { option: BROKEN[name], base };
  return [
    ...handlers,
    watchForMissedDrill(`scenarioHandlers('${name}')`, [broken], Object.values(urls)),
  ];
}
