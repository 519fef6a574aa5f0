import { ApiResponseError, LicensingError, type LicensingErrorCode } from '../errors.js';
import { splitTokens } from '../internal/authz-wire.js';
import type { FailureReason, ServiceName } from '../types.js';
import { parseApiErrorBody } from './api-error-body.js';
import type { HttpOutcome } from './http-attempt.js';
import { parseRetryAfter } from './retry-after.js';

/** Verdict on one HTTP exchange. */
export type Verdict =
  | {
      ok: true;
      /**
       * The body as the caller expected it, read once here: the tokens of a `tokens` answer, the
       * value `read` returned for a `json` one.
       */
      value?: unknown;
    }
  | {
      ok: false;
      /** True when the service itself is failing: worth retrying, then failing over. */
      outage: boolean;
      reason: FailureReason;
      /** The server's `Retry-After`, in ms, when it sent one (uncapped). */
      retryAfterMs?: number;
      /** The error to report for this exchange. */
      error: LicensingError;
    };

/** A failed {@link Verdict}. */
export type FailureVerdict = Exclude<Verdict, { ok: true }>;

/**
 * What a successful body must be. Anything else in a 2xx answer (a proxy's page, a broken
 * deployment) is an outage of the service, built here for every caller:
 * - `none`: any body;
 * - `tokens`: exactly `count` compact JWS joined by `&` (`application/jwt`);
 * - `json`: JSON that `read` accepts (it throws otherwise; its return value is the verdict's
 *   `value`), `what` naming it in the message.
 */
export type ExpectedBody =
  | { kind: 'none' }
  | { kind: 'tokens'; count: number }
  | { kind: 'json'; what: string; read?: (json: unknown) => unknown };

/** Any JSON body. */
export const EXPECT_JSON: ExpectedBody = { kind: 'json', what: 'JSON' };
/** A JWK set: an object with a `keys` array. */
export const EXPECT_JWKS: ExpectedBody = {
  kind: 'json',
  what: 'a JWK set (an object with a keys array)',
  read: (json) => {
    const keys = (json as { keys?: unknown } | null)?.keys;
    if (typeof json !== 'object' || !Array.isArray(keys)) throw new TypeError('no keys array');
    return json;
  },
};
/** A JSON array. */
export const EXPECT_ARRAY: ExpectedBody = {
  kind: 'json',
  what: 'a JSON array',
  read: (json) => {
    if (!Array.isArray(json)) throw new TypeError('not an array');
    return json;
  },
};
/** The JSON boolean of a status check (`true` or `false`). */
export const EXPECT_BOOLEAN: ExpectedBody = {
  kind: 'json',
  what: 'the JSON boolean true or false',
  read: (json) => {
    if (typeof json !== 'boolean') throw new TypeError('not a boolean');
    return json;
  },
};
/** No particular body. */
export const EXPECT_NONE: ExpectedBody = { kind: 'none' };

/** The `count` tokens of an `application/jwt` answer. */
export function expectTokens(count: number): ExpectedBody {
  return { kind: 'tokens', count };
}

/** Context of {@link classifyOutcome}. */
export interface ClassifyContext {
  service: ServiceName;
  expect: ExpectedBody;
  /** Current time in ms since the epoch, for HTTP-date `Retry-After`. */
  now: number;
  /** The exchange's timeout, for the message of a timed-out one. */
  timeoutMs?: number;
}

const LABELS: Record<ServiceName, string> = {
  main: 'the main licensing service',
  standby: 'the standby licensing service',
  events: 'the event service',
};

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

const NETWORK_TEXT: Partial<Record<FailureReason, string>> = {
  dns: 'DNS lookup failed',
  'connection-refused': 'connection refused',
  'connection-reset': 'connection reset',
  timeout: 'no answer in time',
  network: 'network error',
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

/** The success verdict when `body` is what `expect` says, else why not. */
function matchBody(body: string, expect: ExpectedBody): Verdict | { mismatch: unknown } {
  if (expect.kind === 'none') return { ok: true };
  if (expect.kind === 'tokens') {
    const tokens = splitTokens(body);
    if (tokens?.length === expect.count) return { ok: true, value: tokens };
    return { mismatch: new TypeError(`${tokens?.length ?? 0} token(s) for ${expect.count}`) };
  }
  try {
    const json: unknown = JSON.parse(body);
    return { ok: true, value: expect.read ? expect.read(json) : json };
  } catch (mismatch) {
    return { mismatch };
  }
}

/** What the caller expected, for the message of a 2xx that is not it. */
function describe(expect: ExpectedBody): string {
  if (expect.kind === 'tokens') {
    return expect.count === 1 ? 'a JWT' : `${expect.count} JWTs joined by &`;
  }
  return expect.kind === 'json' ? expect.what : 'a body';
}

const REFUSALS: Record<number, [FailureReason, LicensingErrorCode]> = {
  400: ['bad-request', 'REQUEST_REJECTED'],
  401: ['unauthorized', 'UNAUTHORIZED'],
  403: ['forbidden', 'FORBIDDEN'],
  404: ['not-found', 'NOT_FOUND'],
};

/**
 * The SDK's one mapping from an HTTP exchange to its meaning, for every service (stripe
 * `generateV1Error`).
 *
 * Outages (retry, fail over, or for the event service: retry later), all `SERVICE_UNAVAILABLE`:
 * network errors (refused, reset, DNS), timeouts, 5xx, 408, 429 (with its `Retry-After`), and a
 * 2xx whose body is not what the endpoint serves (an HTML page instead of a JWT). Refusals:
 * 400 `REQUEST_REJECTED`, 401 `UNAUTHORIZED`, 403 `FORBIDDEN` (any 403 from the standby:
 * `STANDBY_DORMANT`, its only 403 per the spec), 404 `NOT_FOUND`, other 4xx `REQUEST_REJECTED`.
 * HTTP errors are {@link ApiResponseError}s carrying the ApiError body's fields.
 */
export function classifyOutcome(outcome: HttpOutcome, context: ClassifyContext): Verdict {
  const { service } = context;
  const label = LABELS[service];
  if (outcome.kind === 'error') {
    const reason = outcome.timedOut ? 'timeout' : networkReason(outcome.error);
    const what =
      reason === 'timeout' && context.timeoutMs !== undefined
        ? `no answer within ${context.timeoutMs} ms`
        : NETWORK_TEXT[reason];
    return {
      ok: false,
      outage: true,
      reason,
      error: new LicensingError(
        'SERVICE_UNAVAILABLE',
        `Could not reach ${label} (${outcome.url}): ${what}`,
        { cause: outcome.error },
      ),
    };
  }
  const { status, url, body } = outcome;
  if (status >= 200 && status < 300) {
    const matched = matchBody(body, context.expect);
    if ('ok' in matched) return matched;
    return {
      ok: false,
      outage: true,
      reason: 'malformed-body',
      error: new ApiResponseError(
        'SERVICE_UNAVAILABLE',
        `${label} answered HTTP ${status} with a body that is not ${describe(context.expect)} (${url})`,
        { status, url, service, cause: matched.mismatch },
      ),
    };
  }
  const apiError = parseApiErrorBody(body);
  const init = { status, url, service, ...apiError };
  const detail =
    apiError.error === undefined
      ? ''
      : ` ${apiError.error}${apiError.errorDescription ? `: ${apiError.errorDescription}` : ''}`;
  const message = `${label} answered HTTP ${status}${detail} (${url})`;
  if (status >= 500 || status === 408 || status === 429) {
    const retryAfterMs = parseRetryAfter(outcome.headers.get('retry-after'), context.now);
    const reason: FailureReason =
      status === 429 ? 'rate-limited' : status === 408 ? 'request-timeout' : 'server-error';
    return {
      ok: false,
      outage: true,
      reason,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      error: new ApiResponseError('SERVICE_UNAVAILABLE', message, init),
    };
  }
  // The standby's only 403 is the dormant answer (spec "Errors"), whatever its body says.
  if (status === 403 && service === 'standby') {
    return {
      ok: false,
      outage: false,
      reason: 'standby-dormant',
      error: new ApiResponseError('STANDBY_DORMANT', `${label} is dormant (${url})`, init),
    };
  }
  const [reason, code] = REFUSALS[status] ?? ['client-error', 'REQUEST_REJECTED'];
  return { ok: false, outage: false, reason, error: new ApiResponseError(code, message, init) };
}
