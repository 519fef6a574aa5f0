import { ApiResponseError, LicensingError, type LicensingErrorCode } from '../errors.js';
import { isCompactJwt } from '../internal/authz-wire.js';
import { parseRetryAfter } from '../internal/backoff.js';
import type { HttpAttemptOutcome } from '../internal/http-attempt.js';

/** Which licensing service an attempt went to. */
export type LicensingService = 'main' | 'standby';

/** Why an attempt failed, as far as the SDK can tell. */
export type FailureReason =
  | 'dns'
  | 'connection-refused'
  | 'connection-reset'
  | 'network'
  | 'timeout'
  | 'server-error'
  | 'request-timeout'
  | 'rate-limited'
  | 'malformed-body'
  | 'id-token-unavailable'
  | 'bad-request'
  | 'unauthorized'
  | 'forbidden'
  | 'standby-dormant'
  | 'not-found'
  | 'client-error';

/** Verdict on one attempt. */
export type AttemptVerdict =
  | { ok: true }
  | {
      ok: false;
      /** True when the service itself is failing: retry it, then fail over. */
      outage: boolean;
      reason: FailureReason;
      /** The server's `Retry-After`, in ms, when it sent one (uncapped). */
      retryAfterMs?: number;
      /** The error to report for this attempt. */
      error: LicensingError;
    };

/** What a successful body must look like. */
export type ExpectedBody = 'jwt' | 'json' | 'none';

/** Context of {@link classifyFailure}. */
export interface ClassifyContext {
  service: LicensingService | 'events';
  expect: ExpectedBody;
  /** Current time in ms since the epoch, for HTTP-date `Retry-After`. */
  now: number;
}

const NETWORK_CODES: Record<string, FailureReason> = {
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  ECONNREFUSED: 'connection-refused',
  ECONNRESET: 'connection-reset',
  EPIPE: 'connection-reset',
  UND_ERR_SOCKET: 'connection-reset',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
};

function networkReason(error: unknown): FailureReason {
  // fetch wraps the socket error: TypeError('fetch failed', { cause: { code } }).
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Object; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code in NETWORK_CODES) return NETWORK_CODES[code]!;
    current = (current as { cause?: unknown }).cause;
  }
  return 'network';
}

function parseApiError(body: string): { error?: string; errorDescription?: string } {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    return {
      ...(typeof parsed.error === 'string' ? { error: parsed.error } : {}),
      ...(typeof parsed.error_description === 'string'
        ? { errorDescription: parsed.error_description }
        : {}),
    };
  } catch {
    return {};
  }
}

function bodyMatches(body: string, expect: ExpectedBody): boolean {
  if (expect === 'none') return true;
  if (expect === 'jwt') {
    const parts = body.trim().split('&');
    return parts.every(isCompactJwt);
  }
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

const REFUSALS: Record<number, [FailureReason, LicensingErrorCode]> = {
  400: ['bad-request', 'REQUEST_REJECTED'],
  401: ['unauthorized', 'UNAUTHORIZED'],
  403: ['forbidden', 'FORBIDDEN'],
  404: ['not-found', 'NOT_FOUND'],
};

/**
 * The one place that decides what an attempt's outcome means (stripe `generateV1Error`).
 *
 * Outages (retry, then fail over): network errors (refused, reset, DNS), per-attempt timeouts,
 * 5xx, 408, 429 (with its `Retry-After`), and a 2xx whose body is not what the endpoint serves
 * (an HTML page instead of a JWT). Refusals (no failover): 400, 401, 403, 404 and other 4xx;
 * any 403 from the standby (`standby_dormant`) maps to `STANDBY_DORMANT`.
 */
export function classifyFailure(
  outcome: HttpAttemptOutcome,
  context: ClassifyContext,
): AttemptVerdict {
  const { service } = context;
  if (outcome.kind === 'error') {
    const reason = outcome.timedOut ? 'timeout' : networkReason(outcome.error);
    return {
      ok: false,
      outage: true,
      reason,
      error: new LicensingError('SERVICE_UNAVAILABLE', `${service}: ${reason} (${outcome.url})`, {
        cause: outcome.error,
      }),
    };
  }
  const { status, url, body } = outcome;
  if (status >= 200 && status < 300) {
    if (bodyMatches(body, context.expect)) return { ok: true };
    return {
      ok: false,
      outage: true,
      reason: 'malformed-body',
      error: new ApiResponseError(
        'SERVICE_UNAVAILABLE',
        `${service}: HTTP ${status} with a body that is not ${context.expect === 'jwt' ? 'a JWT' : 'JSON'} (${url})`,
        { status, url, service },
      ),
    };
  }
  const apiError = parseApiError(body);
  const init = { status, url, service, ...apiError };
  const detail = apiError.error === undefined ? '' : ` ${apiError.error}`;
  if (status >= 500 || status === 408 || status === 429) {
    const retryAfterMs = parseRetryAfter(outcome.headers.get('retry-after'), context.now);
    const reason: FailureReason =
      status === 429 ? 'rate-limited' : status === 408 ? 'request-timeout' : 'server-error';
    return {
      ok: false,
      outage: true,
      reason,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      error: new ApiResponseError(
        'SERVICE_UNAVAILABLE',
        `${service}: HTTP ${status}${detail} (${url})`,
        init,
      ),
    };
  }
  // The standby's only 403 is the dormant answer (spec "Errors"), whatever its body says.
  if (status === 403 && service === 'standby') {
    return {
      ok: false,
      outage: false,
      reason: 'standby-dormant',
      error: new ApiResponseError('STANDBY_DORMANT', `standby: dormant (${url})`, init),
    };
  }
  const [reason, code] = REFUSALS[status] ?? ['client-error', 'REQUEST_REJECTED'];
  return {
    ok: false,
    outage: false,
    reason,
    error: new ApiResponseError(code, `${service}: HTTP ${status}${detail} (${url})`, init),
  };
}
