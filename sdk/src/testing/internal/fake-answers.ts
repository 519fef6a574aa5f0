// The fake services' answers: every one carries the `Date` a real server sends (on the fakes'
// clock), errors are ApiError bodies (docs/protocol.md "Status codes and errors"). Private to
// the testing kit.
import { HttpResponse } from 'msw';

/** The HTTP date of `nowMs`, as a server's `Date` header. */
function dateHeader(nowMs: number): Record<string, string> {
  return { date: new Date(nowMs).toUTCString() };
}

/**
 * An ApiError answer: `{ error, error_description }` with `status`.
 *
 * @example
 * return apiError(403, 'standby_dormant', 'The standby licensing service is dormant', now());
 */
export function apiError(
  status: number,
  error: string,
  description: string,
  nowMs: number,
  headers: Record<string, string> = {},
): Response {
  return HttpResponse.json(
    { error, error_description: description },
    { status, headers: { ...dateHeader(nowMs), ...headers } },
  );
}

/** A 200 JSON answer. */
export function jsonAnswer(value: unknown, nowMs: number): Response {
  return HttpResponse.json(value as never, { headers: dateHeader(nowMs) });
}

/** A 200 `application/jwt` answer: the tokens joined by `&`. */
export function tokensAnswer(tokens: readonly string[], nowMs: number): Response {
  return new HttpResponse(tokens.join('&'), {
    headers: { 'content-type': 'application/jwt', ...dateHeader(nowMs) },
  });
}

/** 404 `not_found` for a route or method the service does not have. */
export function notFound(request: Request, nowMs: number): Response {
  const { pathname } = new URL(request.url);
  return apiError(404, 'not_found', `Route ${request.method} ${pathname} not found`, nowMs);
}
