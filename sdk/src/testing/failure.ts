import { HttpResponse } from 'msw';
import { waitForAbort } from './internal/abort.js';

/**
 * Named ways a service can fail, each one the SDK classifies as the service being unavailable:
 *
 * - `'refused'`: connection refused. `fetch` rejects with a `TypeError` (msw's
 *   `HttpResponse.error()`).
 * - `'reset'`: connection reset mid-request. Through `fetch` it looks exactly like `'refused'`
 *   (a `TypeError`); kept as its own name so drills read like the incident they rehearse.
 * - `'dns'`: the host name does not resolve. `fetch` rejects with a `TypeError` whose `cause`
 *   carries Node's `code: 'ENOTFOUND'`, `syscall: 'getaddrinfo'` and `hostname`, as undici's
 *   does. In a browser (`setupWorker`) the extra fields do not survive and it is a plain
 *   network error, as a real DNS failure is there too.
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

/** The error page a reverse proxy shows for `status`. */
export function htmlErrorPage(status: number, title: string): string {
  return `<!DOCTYPE html>\n<html><head><title>${status} ${title}</title></head><body><h1>${status} ${title}</h1><hr><center>nginx</center></body></html>\n`;
}

/** The login page a captive portal (hotel Wi-Fi, corporate proxy) answers every request with. */
export const CAPTIVE_PORTAL_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in to the network</title></head><body><form method="post" action="/login"><input name="room"><button>Connect</button></form></body></html>\n';

/** A DNS failure as Node reports it; msw forwards it as the `cause` of the fetch `TypeError`. */
function dnsFailure(request: Request): Response {
  const hostname = new URL(request.url).hostname;
  return Object.assign(HttpResponse.error(), {
    message: `getaddrinfo ENOTFOUND ${hostname}`,
    code: 'ENOTFOUND',
    errno: -3008,
    syscall: 'getaddrinfo',
    hostname,
  });
}

/**
 * The answer `failure` gives to `request`. Network failures are `Response.error()` responses,
 * which msw turns into a rejected `fetch`; `'hang'` resolves only when the request aborts.
 *
 * @param failure - the way to fail.
 * @param request - the intercepted request (its `signal` releases a hang).
 * @param retryAfter - `Retry-After` value for `'rate-limited'` (seconds or an HTTP date).
 *   Default `'1'`.
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
      return HttpResponse.error();
    case 'dns':
      return dnsFailure(request);
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
