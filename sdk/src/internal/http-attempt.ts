import { createAttemptSignal } from './attempt-signal.js';

/** One HTTP request to one service, bounded by a per-attempt timeout. */
export interface HttpAttemptInit {
  fetch: typeof fetch;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Per-attempt timeout covering connect, headers and body, in ms. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** What one attempt produced; {@link classifyFailure} turns it into a verdict. */
export type HttpAttemptOutcome =
  | { kind: 'response'; url: string; status: number; headers: Headers; body: string }
  | { kind: 'error'; url: string; error: unknown; timedOut: boolean };

/**
 * Sends one request and reads the whole body under the attempt timeout. Never retries (the
 * failover loop is the only retry owner). Network failures and timeouts are returned as an
 * outcome; only the caller's own abort rejects (with the signal's reason).
 */
export async function sendHttpAttempt(init: HttpAttemptInit): Promise<HttpAttemptOutcome> {
  init.signal?.throwIfAborted();
  const attempt = createAttemptSignal(init.timeoutMs, init.signal);
  try {
    const response = await init.fetch(init.url, {
      method: init.method ?? 'GET',
      headers: init.headers ?? {},
      signal: attempt.signal,
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const body = await response.text();
    return {
      kind: 'response',
      url: init.url,
      status: response.status,
      headers: response.headers,
      body,
    };
  } catch (error) {
    if (init.signal?.aborted) throw init.signal.reason;
    return { kind: 'error', url: init.url, error, timedOut: attempt.timedOut };
  } finally {
    attempt.dispose();
  }
}
