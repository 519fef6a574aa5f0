import type { AuthorizationOptions, Credentials } from '../auth/credentials.js';
import { ApiResponseError } from '../errors.js';
import { messageOf } from '../internal/message-of.js';
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
  /** Send with fetch's `keepalive` (a release while the page unloads). Default false. */
  keepalive?: boolean;
}

/** A successful answer: the URL asked, the body, and what it says. */
export interface LicensingResponse {
  url: string;
  body: string;
  /** The body as `expect` reads it (the tokens, the parsed JSON), read once to classify it. */
  value?: unknown;
  /**
   * The services' time from the answer's `Date` header, in ms since the epoch (mid-second: the
   * header has whole seconds), when it had a readable one.
   */
  serviceTime?: number;
}

/** The licensing client's only way to talk HTTP. */
export interface LicensingTransport {
  /**
   * The key id the standby's `/authz/.jwt` is asked to sign with now (`Service-SigningKeyId`),
   * or undefined when the app pins none.
   */
  readonly signingKeyId: string | undefined;
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
  /**
   * Key ids to send to the standby's `/authz/.jwt`, in order of preference: the first is sent;
   * when the standby answers `unknown_signing_key`, the next (for the rest of the client's life).
   */
  signingKeyIds: readonly string[];
  credentials: Credentials;
}

/**
 * The most of an answer's body the client reads: every licensing answer (a JWK set, tokens, a
 * status) is far smaller, and a longer one is no licensing service's (an outage of it).
 */
export const MAX_ANSWER_BYTES = 1_048_576;

/** The `Date` header as ms since the epoch, mid-second, or undefined when absent or unreadable. */
function readServiceTime(headers: Headers): number | undefined {
  const text = headers.get('date');
  const time = text === null ? Number.NaN : Date.parse(text);
  return Number.isNaN(time) ? undefined : time + 500;
}

/** True for the standby's refusal of the `Service-SigningKeyId` it was sent. */
function isUnknownSigningKey(verdict: Verdict): boolean {
  return (
    !verdict.ok &&
    verdict.error instanceof ApiResponseError &&
    verdict.error.error === 'unknown_signing_key'
  );
}

function failedAttempt(verdict: Verdict): FailedAttempt {
  if (verdict.ok) throw new Error('unreachable: a successful verdict without a response');
  return new FailedAttempt(verdict);
}

/**
 * Builds the licensing transport on the SDK's ky-based HTTP attempt: base URLs, the
 * `Authorization` and signing-key headers from a `beforeRequest` hook, the one ID-token refresh
 * after a main 401 from an `afterResponse` hook, the attempt timeout, and the one HTTP→error
 * mapping (`classifyOutcome`). No token at all is the credentials' own error, thrown as is: the
 * SDK never fails over because of its ID token. A main 401 that the refresh cannot answer stays
 * a refusal (`UNAUTHORIZED`): main decides, whatever the ID-token provider did.
 */
export function createLicensingTransport(deps: LicensingTransportDeps): LicensingTransport {
  const send = createHttpAttempt(deps.fetch);
  const { credentials, signingKeyIds } = deps;
  /** Which of `signingKeyIds` is sent. */
  let keyIndex = 0;

  async function authorization(
    service: LicensingService,
    options: AuthorizationOptions,
  ): Promise<string> {
    try {
      return await credentials.authorization(service, options);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new HookAbort('no credentials', { cause: error });
    }
  }

  return {
    get signingKeyId() {
      return signingKeyIds[keyIndex];
    },
    async request(service, request, signal) {
      const base = service === 'main' ? deps.mainUrl : deps.standbyUrl;
      const url = `${base}${request.path}${request.query ? `?${request.query}` : ''}`;
      const headers: Record<string, string> = {
        accept: request.expect.kind === 'tokens' ? 'application/jwt' : 'application/json',
      };
      if (request.contentType) headers['content-type'] = request.contentType;
      const sentKeyIndex = keyIndex;
      const keyId = request.signingKey && service === 'standby' ? this.signingKeyId : undefined;
      if (keyId !== undefined) headers[deps.signingKeyIdHeader] = keyId;
      const classify = (outcome: HttpOutcome) =>
        classifyOutcome(outcome, {
          service,
          expect: request.expect,
          now: deps.now(),
          timeoutMs: deps.attemptTimeoutMs,
        });
      const authorize = request.authorize ?? true;
      const refreshAfter401 = authorize && service === 'main' && credentials.refreshable;
      /** Why the refresh after a 401 could not help, when it could not. */
      let refreshFailure: unknown;
      const outcome: HttpOutcome = await send({
        url,
        method: request.method ?? 'GET',
        headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(request.keepalive ? { keepalive: true } : {}),
        timeoutMs: deps.attemptTimeoutMs,
        maxBodyBytes: MAX_ANSWER_BYTES,
        signal,
        hooks: {
          beforeRequest: authorize
            ? [
                async (req) => {
                  req.headers.set('authorization', await authorization(service, { signal }));
                },
              ]
            : [],
          afterResponse: refreshAfter401
            ? [
                async (req, _options, response) => {
                  if (response.status !== 401) return undefined;
                  let fresh: string;
                  try {
                    fresh = await credentials.authorization(service, {
                      signal,
                      forceRefresh: true,
                    });
                  } catch (error) {
                    if (signal?.aborted) throw error;
                    // No fresh token: main's 401 is the answer.
                    refreshFailure = error;
                    return undefined;
                  }
                  req.headers.set('authorization', fresh);
                  // One retry with the fresh token, without these hooks (no second refresh).
                  const retried = await send({
                    url: req.url,
                    method: req.method,
                    headers: Object.fromEntries(req.headers),
                    ...(request.body === undefined ? {} : { body: request.body }),
                    timeoutMs: deps.attemptTimeoutMs,
                    maxBodyBytes: MAX_ANSWER_BYTES,
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
        const serviceTime = readServiceTime(outcome.headers);
        return {
          url,
          body: outcome.body,
          ...('value' in verdict ? { value: verdict.value } : {}),
          ...(serviceTime === undefined ? {} : { serviceTime }),
        };
      }
      if (
        !verdict.ok &&
        refreshFailure !== undefined &&
        verdict.error instanceof ApiResponseError
      ) {
        const refused = verdict.error;
        throw failedAttempt({
          ...verdict,
          error: new ApiResponseError(
            refused.code,
            `The main licensing service refused the ID token (HTTP ${refused.status}${
              refused.error === undefined ? '' : ` ${refused.error}`
            }, ${refused.url}) and a fresh one could not be had: ${messageOf(refreshFailure)}. Check the app's ID-token provider (\`auth.idToken\`).`,
            {
              status: refused.status,
              url: refused.url,
              service: refused.service,
              ...(refused.error === undefined ? {} : { error: refused.error }),
              ...(refused.errorDescription === undefined
                ? {}
                : { errorDescription: refused.errorDescription }),
              cause: refreshFailure,
            },
          ),
        });
      }
      // The standby knows no key of that id (the root of another service, or of a key it no
      // longer has): ask again with the next root's, at once, as the same attempt.
      if (keyId !== undefined && isUnknownSigningKey(verdict)) {
        if (keyIndex === sentKeyIndex && keyIndex < signingKeyIds.length - 1) keyIndex += 1;
        if (keyIndex !== sentKeyIndex) return this.request(service, request, signal);
      }
      throw failedAttempt(verdict);
    },
  };
}
