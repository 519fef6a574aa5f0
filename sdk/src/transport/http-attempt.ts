import ky, { type Hooks, TimeoutError } from 'ky';
import { readBoundedBody } from './read-bounded-body.js';

/** One HTTP request to one service, with its time budget. */
export interface HttpRequest {
  url: string;
  /** Default `GET`. */
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Budget of the attempt, in ms, from the request leaving until its body is read: the wait for
   * the response headers and the reading of the body share it.
   */
  timeoutMs: number;
  /** The caller's signal: its abort rejects the exchange with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /** Pass `keepalive: true` to fetch, so the request outlives the page. Default false. */
  keepalive?: boolean;
  /**
   * Read at most this many bytes of the body; a longer one is not read whole and comes back as
   * `tooLarge`. Default: no limit.
   */
  maxBodyBytes?: number;
}

/** One HTTP exchange through ky: a request and the hooks that build its headers. */
export interface HttpExchange extends HttpRequest {
  /** ky hooks of this exchange (authorization headers, a refresh after a 401). */
  hooks?: Hooks;
}

/** What one exchange produced; `classifyOutcome` turns it into a verdict. */
export type HttpOutcome =
  | {
      kind: 'response';
      url: string;
      status: number;
      headers: Headers;
      body: string;
      /** True when the body was over `maxBodyBytes` and not read whole (`body` is then empty). */
      tooLarge?: boolean;
    }
  | { kind: 'error'; url: string; error: unknown; timedOut: boolean };

/** Sends one {@link HttpExchange}; never retries and never rejects for a failed exchange. */
export type HttpAttempt = (exchange: HttpExchange) => Promise<HttpOutcome>;

/** Sends one {@link HttpRequest} (no hooks); same contract as {@link HttpAttempt}. */
export type HttpSend = (request: HttpRequest) => Promise<HttpOutcome>;

/** Reason the body deadline aborts with. */
class BodyTimeoutError extends Error {
  override name = 'BodyTimeoutError';
}

/** Thrown by a hook to end the exchange with its own error instead of an outcome. */
export class HookAbort extends Error {
  override name = 'HookAbort';
}

/**
 * Builds the SDK's one HTTP sender on ky: `retry: 0` (the failover loop and the follower own
 * retries), `throwHttpErrors: false` (statuses are classified, not thrown), ky's `timeout` for
 * the response, and `fetchFn` invoked as a plain function as `fetchFn(url, init)`, so msw, a
 * browser's `fetch`, a `fetch` patched later and a test's `(url, init)` fake all work. Network
 * failures and timeouts come back as an outcome; the caller's abort rejects with its reason; a
 * {@link HookAbort} from a hook rejects with its `cause`.
 */
export function createHttpAttempt(fetchFn: typeof fetch): HttpAttempt {
  const api = ky.create({ retry: 0, throwHttpErrors: false });
  return async (exchange) => {
    const { url, signal, timeoutMs } = exchange;
    signal?.throwIfAborted();
    // When the request leaves (after the hooks that build its headers): the body's share of the
    // budget is counted from there.
    let sentAt = Date.now();
    const markSent = () => {
      sentAt = Date.now();
    };
    const body = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const response = await api(url, {
        method: exchange.method ?? 'GET',
        headers: exchange.headers ?? {},
        // The body is not handed to ky: it would wrap it in a stream and tee that stream for
        // retries it never makes (retry 0); the fetch below sends the text itself.
        timeout: timeoutMs,
        signal: signal ? AbortSignal.any([signal, body.signal]) : body.signal,
        // ky hands fetch a Request; the SDK's contract is `fetch(url, init)` with the headers as
        // the hooks left them, the body text and ky's signal (timeout and caller merged).
        fetch: (input, init) => {
          const request = input as Request;
          return fetchFn(request.url, {
            ...init,
            method: request.method,
            headers: request.headers,
            signal: request.signal,
            ...(exchange.body === undefined ? {} : { body: exchange.body }),
            ...(exchange.keepalive ? { keepalive: true } : {}),
          });
        },
        hooks: {
          ...exchange.hooks,
          beforeRequest: [...(exchange.hooks?.beforeRequest ?? []), markSent],
        },
      });
      const remaining = Math.max(0, timeoutMs - (Date.now() - sentAt));
      timer = setTimeout(() => body.abort(new BodyTimeoutError()), remaining);
      const read =
        exchange.maxBodyBytes === undefined
          ? { text: await response.text() }
          : await readBoundedBody(response, exchange.maxBodyBytes);
      return {
        kind: 'response',
        url,
        status: response.status,
        headers: response.headers,
        ...('text' in read ? { body: read.text } : { body: '', tooLarge: true }),
      };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof HookAbort) throw error.cause;
      const timedOut = error instanceof TimeoutError || body.signal.aborted;
      return { kind: 'error', url, error, timedOut };
    } finally {
      clearTimeout(timer);
    }
  };
}
