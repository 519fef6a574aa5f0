import type { AuthorizationOptions, Credentials } from '../auth/credentials.js';
import { isLicensingError, LicensingError } from '../errors.js';
import type { LicensingService } from '../types.js';
import { classifyOutcome, type ExpectedBody, type Verdict } from './classify-outcome.js';
import { FailedAttempt } from './failed-attempt.js';
import { createHttpAttempt, HookAbort, type HttpOutcome } from './http-attempt.js';

/** One request to a licensing service. */
export interface LicensingRequest {
  /** Path under the service's base URL, e.g. `/authz/.jwt`. */
  path: string;
  /** Query string without `?`. */
  query?: string;
  /** Default `GET`. */
  method?: 'GET' | 'POST';
  body?: string;
  contentType?: string;
  /** What a successful body must be; anything else is an outage (an HTML page from a proxy). */
  expect: ExpectedBody;
  /** Send the signing-key header (the standby's `/authz/.jwt`). Default false. */
  signingKey?: boolean;
  /** Send the `Authorization` header. Default true. */
  authorize?: boolean;
}

/** A successful answer: the URL asked and the body. */
export interface LicensingResponse {
  url: string;
  body: string;
  /** The body parsed, when the request expected `json` (it is parsed once, to classify it). */
  json?: unknown;
}

/** The licensing client's only way to talk HTTP. */
export interface LicensingTransport {
  /**
   * One attempt (plus, on main with ID-token auth, one retry after a 401 with a refreshed
   * token). Resolves a successful answer; throws a {@link FailedAttempt} for a classified failure,
   * a LicensingError when no credentials can be had, or the signal's reason when aborted.
   */
  request(
    service: LicensingService,
    request: LicensingRequest,
    signal?: AbortSignal,
  ): Promise<LicensingResponse>;
}

/** What {@link createLicensingTransport} needs (the resolved options and the credentials). */
export interface LicensingTransportDeps {
  mainUrl: string;
  standbyUrl: string;
  fetch: typeof fetch;
  now: () => number;
  attemptTimeoutMs: number;
  signingKeyIdHeader: string;
  /** Sent to the standby's `/authz/.jwt` when set. */
  signingKeyId: string | undefined;
  credentials: Credentials;
}

/** Provider failures that mean "could not reach it", not "it answered wrong". */
const PROVIDER_UNAVAILABLE = new Set(['id-token-provider-failed', 'id-token-provider-timeout']);

/**
 * What a credentials failure means for the call. Main: any failure short of a token past its
 * grace is an outage of main (the identity provider may be down with it), so the standby can
 * still be tried with the cached token. Standby: an unreachable provider with nothing cached is
 * an outage too (nothing could be reached); anything else is the caller's refusal.
 */
function credentialFailure(service: LicensingService, error: unknown, url: string): unknown {
  if (!isLicensingError(error) || error.code === 'ID_TOKEN_EXPIRED') return error;
  const unreachable = error.reason !== undefined && PROVIDER_UNAVAILABLE.has(error.reason);
  if (service === 'standby' && !unreachable) return error;
  return new FailedAttempt({
    ok: false,
    outage: true,
    reason: 'id-token-unavailable',
    error: new LicensingError(
      'SERVICE_UNAVAILABLE',
      `No ID token to call the ${service} licensing service (${url}): ${error.message}`,
      { cause: error, ...(error.reason === undefined ? {} : { reason: error.reason }) },
    ),
  });
}

function failedAttempt(verdict: Verdict): FailedAttempt {
  if (verdict.ok) throw new Error('unreachable: a successful verdict without a response');
  return new FailedAttempt(verdict);
}

/**
 * Builds the licensing transport on the SDK's ky-based HTTP attempt: base URLs, the
 * `Authorization` and signing-key headers from a `beforeRequest` hook, the one ID-token refresh
 * after a main 401 from an `afterResponse` hook, the attempt timeout, and the one HTTP→error
 * mapping (`classifyOutcome`).
 */
export function createLicensingTransport(deps: LicensingTransportDeps): LicensingTransport {
  const send = createHttpAttempt(deps.fetch);
  const { credentials } = deps;

  async function authorization(
    service: LicensingService,
    url: string,
    options: AuthorizationOptions,
  ): Promise<string> {
    try {
      return await credentials.authorization(service, options);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new HookAbort('no credentials', { cause: credentialFailure(service, error, url) });
    }
  }

  return {
    async request(service, request, signal) {
      const base = service === 'main' ? deps.mainUrl : deps.standbyUrl;
      const url = `${base}${request.path}${request.query ? `?${request.query}` : ''}`;
      const headers: Record<string, string> = {
        accept: request.expect === 'jwt' ? 'application/jwt' : 'application/json',
      };
      if (request.contentType) headers['content-type'] = request.contentType;
      if (request.signingKey && service === 'standby' && deps.signingKeyId !== undefined) {
        headers[deps.signingKeyIdHeader] = deps.signingKeyId;
      }
      const classify = (outcome: HttpOutcome) =>
        classifyOutcome(outcome, {
          service,
          expect: request.expect,
          now: deps.now(),
          timeoutMs: deps.attemptTimeoutMs,
        });
      const authorize = request.authorize ?? true;
      const refreshAfter401 = authorize && service === 'main' && credentials.refreshable;
      const outcome: HttpOutcome = await send({
        url,
        method: request.method ?? 'GET',
        headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        timeoutMs: deps.attemptTimeoutMs,
        signal,
        hooks: {
          beforeRequest: authorize
            ? [
                async (req) => {
                  req.headers.set('authorization', await authorization(service, url, { signal }));
                },
              ]
            : [],
          afterResponse: refreshAfter401
            ? [
                async (req, _options, response) => {
                  if (response.status !== 401) return undefined;
                  const fresh = await authorization(service, url, { signal, forceRefresh: true });
                  req.headers.set('authorization', fresh);
                  // One retry with the fresh token, without these hooks (no second refresh).
                  const retried = await send({
                    url: req.url,
                    method: req.method,
                    headers: Object.fromEntries(req.headers),
                    ...(request.body === undefined ? {} : { body: request.body }),
                    timeoutMs: deps.attemptTimeoutMs,
                    signal,
                  });
                  if (retried.kind === 'error') {
                    throw new HookAbort('retry failed', {
                      cause: failedAttempt(classify(retried)),
                    });
                  }
                  return new Response(retried.body === '' ? null : retried.body, {
                    status: retried.status,
                    headers: retried.headers,
                  });
                },
              ]
            : [],
        },
      });
      const verdict = classify(outcome);
      if (verdict.ok && outcome.kind === 'response') {
        return { url, body: outcome.body, ...('json' in verdict ? { json: verdict.json } : {}) };
      }
      throw failedAttempt(verdict);
    },
  };
}
