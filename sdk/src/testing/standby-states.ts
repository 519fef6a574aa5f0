import { type HttpHandler, HttpResponse, http } from 'msw';
import { type FailServiceOptions, failService } from './fail-service.js';
import type { Failure } from './failure.js';
import { trimBase } from './internal/service-url.js';

// Handler factories that put the standby licensing service in each state a client can meet
// during an outage. Management calls (those carrying the API-key header) are never answered
// here: they fall through to the next handler or the real server.

/** Options shared by the standby factories. */
export interface StandbyStateOptions {
  /**
   * Name of the management API-key header; requests carrying it are management calls and are
   * left alone. Default `'Service-ApiKey'` (set it when a vendor renamed the header).
   */
  apiKeyHeader?: string;
}

/** Options of {@link standbyDormant}. */
export interface StandbyDormantOptions extends StandbyStateOptions {
  /**
   * What the status checks (`GET /enabled`, `GET /disabled`) report. Default `false`, as a
   * dormant standby does; `true` rehearses the propagation delay of an enable (status already
   * says enabled, licensing calls still refused), see
   * https://github.com/standby-licensing/standby-licensing/blob/main/docs/protocol.md#states
   */
  reportEnabled?: boolean;
}

/** The ApiError body a dormant standby answers `/authz/.jwt` and the JWKS with. */
export const STANDBY_DORMANT_BODY = {
  error: 'standby_dormant',
  error_description: 'The standby licensing service is dormant',
} as const;

function statusHandlers(
  standbyUrl: string | URL,
  enabled: boolean,
  options: StandbyStateOptions,
): HttpHandler[] {
  const base = trimBase(standbyUrl);
  const apiKeyHeader = options.apiKeyHeader ?? 'Service-ApiKey';
  // Status checks answer the JSON boolean; `/disabled` reports the opposite of `/enabled`.
  const report = (path: 'enabled' | 'disabled', value: boolean) =>
    http.get(`${base}/${path}`, ({ request }) =>
      request.headers.has(apiKeyHeader) ? undefined : HttpResponse.json(value),
    );
  return [report('enabled', enabled), report('disabled', !enabled)];
}

/**
 * Standby status checks report enabled: `GET /enabled` → `true`, `GET /disabled` → `false`.
 * Other routes (`/authz/.jwt`, JWKS) are not touched: serve them from a real mock server
 * (passthrough) or with your own handlers placed after these.
 *
 * @param standbyUrl - the standby service's base URL.
 * @example
 * server.use(...standbyEnabled(standbyUrl));
 * await (await fetch(`${standbyUrl}/enabled`)).json(); // true
 */
export function standbyEnabled(
  standbyUrl: string | URL,
  options: StandbyStateOptions = {},
): HttpHandler[] {
  return statusHandlers(standbyUrl, true, options);
}

/**
 * Standby status checks report disabled: `GET /enabled` → `false`, `GET /disabled` → `true`.
 * Licensing routes are not touched; use {@link standbyDormant} for the 403s as well.
 *
 * @example
 * server.use(...standbyDisabled(standbyUrl));
 */
export function standbyDisabled(
  standbyUrl: string | URL,
  options: StandbyStateOptions = {},
): HttpHandler[] {
  return statusHandlers(standbyUrl, false, options);
}

/**
 * Standby is dormant, as the real one is while switched off: `/authz/.jwt` (any method) and
 * `GET /.well-known/jwks.json` answer 403 with the ApiError `standby_dormant`, and the status
 * checks report disabled (or enabled, with `reportEnabled`).
 *
 * @example
 * server.use(...standbyDormant(standbyUrl));
 * (await fetch(`${standbyUrl}/authz/.jwt?ItemA`)).status; // 403
 */
export function standbyDormant(
  standbyUrl: string | URL,
  options: StandbyDormantOptions = {},
): HttpHandler[] {
  const base = trimBase(standbyUrl);
  const dormant = () => HttpResponse.json(STANDBY_DORMANT_BODY, { status: 403 });
  return [
    http.all(`${base}/authz/.jwt`, dormant),
    http.get(`${base}/.well-known/jwks.json`, dormant),
    ...statusHandlers(standbyUrl, options.reportEnabled ?? false, options),
  ];
}

/** Options of {@link standbyAbsent}. */
export interface StandbyAbsentOptions extends FailServiceOptions {
  /** How the missing standby fails. Default `'refused'` (nothing listens). */
  failure?: Failure;
}

/**
 * No standby at all (not deployed, or down with the main service): every request to it is a
 * network error.
 *
 * @example
 * server.use(...mainRefused(mainUrl), ...standbyAbsent(standbyUrl));
 */
export function standbyAbsent(
  standbyUrl: string | URL,
  options: StandbyAbsentOptions = {},
): HttpHandler[] {
  const { failure = 'refused', ...rest } = options;
  return failService(standbyUrl, failure, rest);
}
