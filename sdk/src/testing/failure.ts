import { HttpResponse } from 'msw';
import { waitForAbort } from './internal/abort.js';

/**
 * Named ways a service can fail, each one the SDK classifies as the service being unavailable:
 *
 * - `'refused'`: connection refused. `fetch` rejects with a `TypeError` (msw's
 *   `HttpResponse.error()`) whose `cause` carries Node's `code: 'ECONNREFUSED'`.
 * - `'reset'`: connection reset. The same `TypeError`, with `cause.code` `'ECONNRESET'`.
 * - `'dns'`: the host name does not resolve: `cause` carries `code: 'ENOTFOUND'`,
 *   `syscall: 'getaddrinfo'` and `hostname`.
 *
 *   For these three the `cause` is msw's error `Response` with Node's socket-error fields
 *   copied onto it, so code that walks `err.cause.code` (as the SDK does) tells them apart. In a
 *   browser (`setupWorker`) the fields do not survive and all three are a plain network error,
 *   exactly as real ones are there.
 * - `'hang'`: the server accepts the request and never answers; the request settles only when
 *   its `signal` aborts (the SDK's per-attempt timeout, or your `AbortController`).
 * - `'server-error'`: 500 with an HTML error page (a proxy's or load balancer's).
 * - `'unavailable'`: 503 with an HTML error page and no `Retry-After`.
 * - `'rate-limited'`: 429 with `Retry-After: 1` and an ApiError body.
 * - `'captive-portal'`: 200 with an HTML login page instead of a JWT or JSON.
 */
export type FailureMode =
  | 'refused'
  | 'reset'
  | 'dns'
  | 'hang'
  | 'server-error'
  | 'unavailable'
  | 'rate-limited'
  | 'captive-portal';

/** A custom failing answer: any status, body and headers. */
export interface StatusFailure {
  status: number;
  /** Response body. Default: an HTML error page naming the status. */
  body?: string;
  /** Response headers. Default `Content-Type: text/html; charset=utf-8` when `body` is omitted. */
  headers?: Record<string, string>;
}

/** How a handler fails: a {@link FailureMode} name or a custom {@link StatusFailure}. */
export type Failure = FailureMode | StatusFailure;

const HTML = 'text/html; charset=utf-8';

/**
 * The error page a reverse proxy shows for `status`.
 *
 * @example
 * new HttpResponse(htmlErrorPage(502, 'Bad Gateway'), { status: 502, headers: { 'Content-Type': 'text/html' } });
 */
export function htmlErrorPage(status: number, title: string): string {
  return `<!DOCTYPE html>\n<html><head><title>${status} ${title}</title></head><body><h1>${status} ${title}</h1><hr><center>nginx</center></body></html>\n`;
}

/** The login page a captive portal (hotel Wi-Fi, corporate proxy) answers every request with. */
export const CAPTIVE_PORTAL_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in to the network</title></head><body><form method="post" action="/login"><input name="room"><button>Connect</button></form></body></html>\n';

/**
 * A network error carrying the fields of Node's socket error (`code`, `errno`, `syscall`, ...).
 * msw rejects `fetch` with `TypeError('Failed to fetch', { cause: response })` for an error
 * response, so these fields end up on the `cause`, where undici puts its socket error. (Throwing
 * a real Error from the resolver would work too, but msw logs every such throw as a bug.)
 */
function networkError(fields: Record<string, string | number>): Response {
  return Object.assign(HttpResponse.error(), fields);
}

function socketFailure(failure: 'refused' | 'reset' | 'dns', request: Request): Response {
  const url = new URL(request.url);
  const hostname = url.hostname;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  switch (failure) {
    case 'refused':
      return networkError({
        message: `connect ECONNREFUSED ${hostname}:${port}`,
        code: 'ECONNREFUSED',
        errno: -111,
        syscall: 'connect',
        address: hostname,
        port: Number(port),
      });
    case 'reset':
      return networkError({
        message: 'read ECONNRESET',
        code: 'ECONNRESET',
        errno: -104,
        syscall: 'read',
      });
    case 'dns':
      return networkError({
        message: `getaddrinfo ENOTFOUND ${hostname}`,
        code: 'ENOTFOUND',
        errno: -3008,
        syscall: 'getaddrinfo',
        hostname,
      });
  }
}

/**
 * The answer `failure` gives to `request`. Network failures are `Response.error()` responses,
 * which msw turns into a rejected `fetch`; `'hang'` resolves only when the request aborts.
 *
 * @param failure - the way to fail.
 * @param request - the intercepted request (its `signal` releases a hang).
 * @param retryAfter - `Retry-After` value for `'rate-limited'` (seconds or an HTTP date).
 *   Default `1`.
 * @example
 * // Your own handler: the first checkout attempt hits a captive portal, later ones pass.
 * let calls = 0;
 * http.post(`${mainUrl}/licensing/actions/checkout`, ({ request }) =>
 *   ++calls === 1 ? createFailureResponse('captive-portal', request) : passthrough(),
 * );
 */
export async function createFailureResponse(
  failure: Failure,
  request: Request,
  retryAfter: string | number = 1,
): Promise<Response> {
  if (typeof failure === 'object') {
    const { status, body, headers } = failure;
    if (body === undefined) {
      return new HttpResponse(htmlErrorPage(status, 'Error'), {
        status,
        headers: { 'Content-Type': HTML, ...headers },
      });
    }
    return new HttpResponse(body, headers === undefined ? { status } : { status, headers });
  }
  switch (failure) {
    case 'refused':
    case 'reset':
    case 'dns':
      return socketFailure(failure, request);
    case 'hang':
      await waitForAbort(request.signal);
      // The client has already rejected with its abort reason; this only ends the handler.
      return HttpResponse.error();
    case 'server-error':
      return new HttpResponse(htmlErrorPage(500, 'Internal Server Error'), {
        status: 500,
        headers: { 'Content-Type': HTML },
      });
    case 'unavailable':
      return new HttpResponse(htmlErrorPage(503, 'Service Temporarily Unavailable'), {
        status: 503,
        headers: { 'Content-Type': HTML },
      });
    case 'rate-limited':
      return HttpResponse.json(
        { error: 'too_many_requests', error_description: 'Rate limit exceeded' },
        { status: 429, headers: { 'Retry-After': String(retryAfter) } },
      );
    case 'captive-portal':
      return new HttpResponse(CAPTIVE_PORTAL_PAGE, {
        status: 200,
        headers: { 'Content-Type': HTML },
      });
    default:
      throw new TypeError(`Unknown failure mode: ${String(failure satisfies never)}`);
  }
}
