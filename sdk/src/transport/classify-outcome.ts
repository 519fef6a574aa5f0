import { ApiResponseError, LicensingError, type LicensingErrorCode } from '../errors.js';
import { splitTokens } from '../internal/authz-wire.js';
import type { ProxyRouteError } from '../internal/proxy-route-error.js';
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
 * - `tokens`: `count` compact JWS joined by `&` (`application/jwt`), as `read` accepts the body
 *   text ({@link expectTokens});
 * - `json`: JSON that `read` accepts.
 *
 * `read` throws for a body it refuses; its return value is the verdict's `value`; `what` names
 * what was expected, in the message.
 */
export type ExpectedBody =
  | { kind: 'none' }
  | { kind: 'tokens'; count: number; what: string; read: (body: string) => unknown }
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

/**
 * The `count` tokens of an `application/jwt` answer: exactly `count` compact JWS joined by `&`.
 * The reading is the expectation's own, not the classifier's, so that the event client, which
 * never expects tokens, does not carry the licensing wire format (bench row 6).
 */
export function expectTokens(count: number): ExpectedBody {
  return {
    kind: 'tokens',
    count,
    what: count === 1 ? 'a JWT' : `${count} JWTs joined by &`,
    read: (body) => {
      const tokens = splitTokens(body);
      if (tokens?.length !== count) {
        throw new TypeError(`${tokens?.length ?? 0} token(s) for ${count}`);
      }
      return tokens;
    },
  };
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

/** Where each service's URL comes from, for the messages that say to check it. */
const URL_OPTIONS: Record<ServiceName, string> = {
  main: '`mainUrl`',
  standby: '`standbyUrl`',
  events: '`eventUrl`',
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

/** What happened, and what to do about it, per network reason. */
const NETWORK_TEXT: Partial<Record<FailureReason, [string, string]>> = {
  dns: ['DNS lookup failed', 'Check the host name in the URL and the network connection'],
  'connection-refused': [
    'connection refused',
    'Check that the service runs at that address, then retry',
  ],
  'connection-reset': ['connection reset', 'Retry later; if it persists, check the network'],
  timeout: ['no answer in time', 'Retry later; if it persists, check the network'],
  network: ['network error', 'Check the network connection, then retry'],
};

/** Socket errors met while reaching a proxy: the proxy is not there, or not reachable. */
const PROXY_UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const PROXY_SETTINGS =
  'the proxy settings (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, or the `proxy` option)';
const PROXY_CREDENTIALS =
  "Put the proxy's user name and password in its URL (http://user:password@host:port) in HTTPS_PROXY, HTTP_PROXY or the `proxy` option";

/** How a failed exchange went wrong on the network, with its message parts. */
interface NetworkFailure {
  reason: FailureReason;
  /** The whole message, when the failure has its own (proxy, TLS). */
  message?: string;
}

/** The errors of `error`'s `cause` chain, outermost first. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  // fetch wraps the socket error: TypeError('fetch failed', { cause: { code } }); the SDK's
  // default fetch may wrap that again in a ProxyRouteError.
  for (let current = error; chain.length < 6 && current instanceof Object; ) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The TLS failure in `chain`, when the certificate check or the handshake failed: OpenSSL's
 * verification codes as Node reports them (`UNABLE_TO_VERIFY_LEAF_SIGNATURE`,
 * `SELF_SIGNED_CERT_IN_CHAIN`, `CERT_HAS_EXPIRED`...), Node's host name check
 * (`ERR_TLS_CERT_ALTNAME_INVALID`), and handshake errors (`ERR_SSL_*`, `EPROTO`).
 */
function tlsFailure(chain: unknown[], where: string): string | undefined {
  for (const error of chain) {
    const code = codeOf(error);
    if (code === undefined) continue;
    const detail = `${code}: ${(error as Error).message}`;
    if (/ALTNAME|HOSTNAME_MISMATCH/.test(code)) {
      return `The certificate of ${where} is for another host name (${detail}). Check the host name in the URL, or have the certificate issued for it`;
    }
    if (/EXPIRED|NOT_YET_VALID|NOT_BEFORE|NOT_AFTER/.test(code)) {
      return `The certificate of ${where} is outside its validity (${detail}). Check this computer's date and time, then the certificate`;
    }
    if (
      /^(UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|CERT_|INVALID_CA|PATH_LENGTH|INVALID_PURPOSE)/.test(code)
    ) {
      return `The certificate of ${where} is not trusted (${detail}). If the network inspects TLS, add its CA certificate with the \`tls.ca\` option or NODE_EXTRA_CA_CERTS; otherwise check the service's certificate chain`;
    }
    if (/^ERR_(SSL|OSSL|TLS)_|^EPROTO$/.test(code)) {
      return `The TLS handshake with ${where} failed (${detail}). Check that the URL is https:// to a port that serves HTTPS, and the \`tls.ca\` certificates`;
    }
  }
  return undefined;
}

/** What went wrong on the way to `where` (the service and its URL). */
function networkFailure(error: unknown, where: string): NetworkFailure {
  const chain = causeChain(error);
  // By name: the CommonJS build loads the Node fetch that throws it as an ES module, another copy.
  const proxied = chain.find((e): e is ProxyRouteError => (e as Error).name === 'ProxyRouteError');
  // Through a proxy too, a certificate that fails the check is the service's (the tunnel
  // carries TLS end to end) or, for an https proxy, the proxy's own.
  const tls = tlsFailure(
    chain,
    proxied && codeOf(chain.at(-1)) === 'UND_ERR_PRX_TLS' ? `the proxy ${proxied.proxy}` : where,
  );
  if (tls) return { reason: 'tls', message: tls };
  let reason: FailureReason = 'network';
  for (const e of chain) {
    const code = codeOf(e);
    if (code !== undefined && code in NETWORK_CODES) {
      reason = NETWORK_CODES[code]!;
      break;
    }
  }
  if (!proxied) return { reason };
  const { proxy, status } = proxied;
  if (proxied.unusable) {
    const why = proxied.cause instanceof Error ? proxied.cause.message : 'unusable';
    return {
      reason: 'proxy',
      message: `The proxy setting ${proxy} cannot be used to reach ${where}: ${why}. Fix ${PROXY_SETTINGS}`,
    };
  }
  // 407 asks for credentials; some proxies (tinyproxy 1.11) answer wrong ones with a 401.
  if (status === 407 || status === 401) {
    return {
      reason: 'proxy',
      message: `The proxy ${proxy} refused to forward the request to ${where}: it requires authentication (HTTP ${status}). ${PROXY_CREDENTIALS}`,
    };
  }
  if (status !== undefined && status < 500) {
    return {
      reason: 'proxy',
      message: `The proxy ${proxy} refused to forward the request to ${where} (HTTP ${status}). Ask the network administrator to allow that host and port through the proxy, or list the host in NO_PROXY if it is reached directly`,
    };
  }
  if (status !== undefined) {
    // The proxy answered but could not reach the service: the service's outage, not the proxy's.
    return {
      reason: 'network',
      message: `The proxy ${proxy} could not connect to ${where} (HTTP ${status}). Check that the service is up and reachable from the proxy; retry later`,
    };
  }
  const socket = chain
    .slice(chain.indexOf(proxied))
    .map(codeOf)
    .find((code) => code !== undefined);
  if (socket !== undefined && PROXY_UNREACHABLE.has(socket)) {
    return {
      reason: 'proxy',
      message: `Could not reach ${where} through the proxy ${proxy}: the proxy is unreachable (${socket}). Check ${PROXY_SETTINGS} and that the proxy runs`,
    };
  }
  return { reason };
}

/** The innermost message of `error`'s cause chain, for an error no code explains. */
function innermostMessage(error: unknown): string | undefined {
  const last = causeChain(error).at(-1);
  const message = last instanceof Error ? last.message : undefined;
  return message && message !== 'fetch failed' && message !== 'Failed to fetch'
    ? message
    : undefined;
}

/** The success verdict when `body` is what `expect` says, else why not. */
function matchBody(body: string, expect: ExpectedBody): Verdict | { mismatch: unknown } {
  if (expect.kind === 'none') return { ok: true };
  try {
    if (expect.kind === 'tokens') return { ok: true, value: expect.read(body) };
    const json: unknown = JSON.parse(body);
    return { ok: true, value: expect.read ? expect.read(json) : json };
  } catch (mismatch) {
    return { mismatch };
  }
}

/** What the caller expected, for the message of a 2xx that is not it. */
function describe(expect: ExpectedBody): string {
  return expect.kind === 'none' ? 'a body' : expect.what;
}

/** What to do about a refusal (a 4xx that is no outage). */
function refusalAdvice(reason: FailureReason, service: ServiceName): string {
  const credentials =
    service === 'events' ? "the event client's `auth` and `signer`" : "the client's `auth`";
  switch (reason) {
    case 'unauthorized':
      return `Check ${credentials}: the service did not accept them`;
    case 'forbidden':
      return `The service does not allow this caller; check ${credentials} and its rights`;
    case 'not-found':
      return `Check ${URL_OPTIONS[service]}, and that what the request names exists`;
    default:
      return "Check the call's arguments, and that this SDK version matches the service's";
  }
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
 * The SDK's own fetch unable to make the request as the client is set up (its network module
 * for proxies and `tls.ca` could not be loaded): `INVALID_ARGUMENT` with reason `network-setup`,
 * no outage.
 * Outages (retry, fail over, or for the event service: retry later), all `SERVICE_UNAVAILABLE`:
 * network errors (refused, reset, DNS), timeouts, 5xx, 408, 429 (with its `Retry-After`), a
 * 2xx whose body is not what the endpoint serves (an HTML page instead of a JWT), and the
 * network in the way: a proxy unreachable or refusing (407 included; reason `proxy`), a TLS
 * certificate not trusted, expired or for another host, a failed handshake (reason `tls`).
 * Those two carry their reason on the error too, so the final error can say so. Refusals:
 * 400 `REQUEST_REJECTED`, 401 `UNAUTHORIZED`, 403 `FORBIDDEN` (any 403 from the standby:
 * `STANDBY_DORMANT`, its only 403 per docs/protocol.md), 404 `NOT_FOUND`, other 4xx
 * `REQUEST_REJECTED`.
 * HTTP errors are {@link ApiResponseError}s carrying the ApiError body's fields. Every message
 * ends with what to do.
 */
export function classifyOutcome(outcome: HttpOutcome, context: ClassifyContext): Verdict {
  const { service } = context;
  const label = LABELS[service];
  if (outcome.kind === 'error') {
    // By name: the CommonJS build's copy of the class is another one.
    const setup = causeChain(outcome.error).find((e) => (e as Error).name === 'NetworkSetupError');
    if (setup) {
      // The app's setup, not the service: no retry, no failover; the message says what to do.
      return {
        ok: false,
        outage: false,
        reason: 'setup',
        error: new LicensingError('INVALID_ARGUMENT', `${(setup as Error).message}.`, {
          cause: outcome.error,
          reason: 'network-setup',
        }),
      };
    }
    const where = `${label} (${outcome.url})`;
    const failure: NetworkFailure = outcome.timedOut
      ? { reason: 'timeout' }
      : networkFailure(outcome.error, where);
    const { reason } = failure;
    let message = failure.message;
    if (message === undefined) {
      const [text, todo] = NETWORK_TEXT[reason] ?? NETWORK_TEXT.network!;
      const what =
        reason === 'timeout' && context.timeoutMs !== undefined
          ? `no answer within ${context.timeoutMs} ms`
          : reason === 'network'
            ? `${text}${innermostMessage(outcome.error) ? ` (${innermostMessage(outcome.error)})` : ''}`
            : text;
      message = `Could not reach ${where}: ${what}. ${todo}`;
    }
    return {
      ok: false,
      outage: true,
      reason,
      error: new LicensingError('SERVICE_UNAVAILABLE', `${message}.`, {
        cause: outcome.error,
        // The reasons an app tells its user about: the network, not the service, is in the way.
        ...(reason === 'proxy' || reason === 'tls' ? { reason } : {}),
      }),
    };
  }
  const { status, url, body } = outcome;
  const The = `T${label.slice(1)}`;
  if (status >= 200 && status < 300 && outcome.tooLarge) {
    return {
      ok: false,
      outage: true,
      reason: 'malformed-body',
      error: new ApiResponseError(
        'SERVICE_UNAVAILABLE',
        `${The} answered HTTP ${status} with a body too large for ${describe(context.expect)}, which was not read (${url}). Check ${URL_OPTIONS[service]}: something other than the licensing service answered.`,
        { status, url, service },
      ),
    };
  }
  if (status >= 200 && status < 300) {
    const matched = matchBody(body, context.expect);
    if ('ok' in matched) return matched;
    return {
      ok: false,
      outage: true,
      reason: 'malformed-body',
      error: new ApiResponseError(
        'SERVICE_UNAVAILABLE',
        `${The} answered HTTP ${status} with a body that is not ${describe(context.expect)} (${url}). Check ${URL_OPTIONS[service]}: a proxy or a captive portal may have answered in the service's place.`,
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
  const answered = `${The} answered HTTP ${status}${detail} (${url})`;
  if (status === 407) {
    // Only a proxy asks for proxy authentication: the network is in the way, not the service.
    return {
      ok: false,
      outage: true,
      reason: 'proxy',
      error: new ApiResponseError(
        'SERVICE_UNAVAILABLE',
        `A proxy on the way to ${label} requires authentication (HTTP 407, ${url}). ${PROXY_CREDENTIALS}.`,
        { ...init, reason: 'proxy' },
      ),
    };
  }
  if (status >= 500 || status === 408 || status === 429) {
    const retryAfterMs = parseRetryAfter(outcome.headers.get('retry-after'), context.now);
    const reason: FailureReason =
      status === 429 ? 'rate-limited' : status === 408 ? 'request-timeout' : 'server-error';
    const todo = status === 429 ? 'The service is busy' : 'The service is failing';
    return {
      ok: false,
      outage: true,
      reason,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      error: new ApiResponseError(
        'SERVICE_UNAVAILABLE',
        `${answered}. ${todo}; retry later.`,
        init,
      ),
    };
  }
  // The standby's only 403 is the dormant answer (docs/protocol.md "Status codes and errors"),
  // whatever its body says.
  if (status === 403 && service === 'standby') {
    return {
      ok: false,
      outage: false,
      reason: 'standby-dormant',
      error: new ApiResponseError(
        'STANDBY_DORMANT',
        `${The} is dormant (${url}): it serves only while the vendor has enabled it for an outage of main. Retry once main is back or the standby is enabled.`,
        init,
      ),
    };
  }
  const [reason, code] = REFUSALS[status] ?? ['client-error', 'REQUEST_REJECTED'];
  return {
    ok: false,
    outage: false,
    reason,
    error: new ApiResponseError(code, `${answered}. ${refusalAdvice(reason, service)}.`, init),
  };
}
