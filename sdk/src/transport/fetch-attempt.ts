import type { HttpOutcome, HttpRequest, HttpSend } from './http-attempt.js';

/**
 * The event client's sender: one {@link HttpRequest} straight to `fetchFn(url, init)`, with the
 * contract of the ky sender (`createHttpAttempt`) and none of its hooks. One timer bounds the
 * whole exchange, response headers and body alike; a network failure or the timeout comes back
 * as an outcome, the caller's abort rejects with `signal.reason`. ky's per-request work (a
 * `Request` built, cloned for retries it never makes, and built again by `fetch`) is about a
 * tenth of an event write's round trip on loopback, and the event service needs no hooks
 * (docs/decisions/0025-event-requests-without-ky.md).
 */
export function createFetchAttempt(fetchFn: typeof fetch): HttpSend {
  return async (request: HttpRequest): Promise<HttpOutcome> => {
    const { url, signal, timeoutMs } = request;
    signal?.throwIfAborted();
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException(`No answer within ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    );
    try {
      const response = await fetchFn(url, {
        method: request.method ?? 'GET',
        headers: request.headers ?? {},
        ...(request.body === undefined ? {} : { body: request.body }),
        signal: signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal,
      });
      const body = await response.text();
      return { kind: 'response', url, status: response.status, headers: response.headers, body };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      return { kind: 'error', url, error, timedOut: deadline.signal.aborted };
    } finally {
      clearTimeout(timer);
    }
  };
}
