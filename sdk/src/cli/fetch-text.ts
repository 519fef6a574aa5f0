import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';

/** How long one request of the command may take, in ms. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Fetches `url` and reads the whole body as text. A network failure or timeout becomes a
 * {@link CliError} (exit code 1) naming the URL and the system error code.
 *
 * @example
 * const [response, body] = await fetchText(new URL('https://standby.example.com/enabled'), {}, io);
 */
export async function fetchText(
  url: URL,
  init: RequestInit,
  io: CliIo,
): Promise<[Response, string]> {
  try {
    const response = await io.fetch(url, {
      ...init,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return [response, await response.text()];
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
    throw new CliError(1, `cannot reach ${url.href}: ${(error as Error).message}${code}`, {
      cause: error,
    });
  }
}

/** The `error` member of an ApiError body, when the body is one. */
export function apiErrorCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return typeof parsed.error === 'string' ? parsed.error : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A refusal as one line: `HTTP 401 invalid_api_key: <error_description>` for an ApiError body,
 * else the status and the start of the body.
 *
 * @example
 * describeApiError(401, '{"error":"invalid_api_key"}'); // 'HTTP 401 invalid_api_key'
 */
export function describeApiError(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    if (typeof parsed.error === 'string') {
      const description =
        typeof parsed.error_description === 'string' ? `: ${parsed.error_description}` : '';
      return `HTTP ${status} ${parsed.error}${description}`;
    }
  } catch {
    // Not an ApiError body; show the start of it below.
  }
  const excerpt = body.trim().slice(0, 200);
  return `HTTP ${status}${excerpt === '' ? '' : `: ${excerpt}`}`;
}
