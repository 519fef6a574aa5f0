import { ApiResponseError, LicensingError, type LicensingErrorCode } from '../errors.js';
import type { HttpAttemptOutcome } from '../internal/http-attempt.js';

/**
 * Maps a failed exchange with the event service to the SDK's errors, in one place: an HTTP error
 * status becomes an {@link ApiResponseError} carrying the ApiError body's `error` and
 * `error_description` (401 → UNAUTHORIZED, 403 → FORBIDDEN, 404 → NOT_FOUND, other 4xx →
 * REQUEST_REJECTED, 5xx → SERVICE_UNAVAILABLE); a network failure or timeout becomes a
 * LicensingError SERVICE_UNAVAILABLE with the failure as `cause`.
 */
export function toEventServiceError(outcome: HttpAttemptOutcome): LicensingError {
  if (outcome.kind === 'error') {
    const what = outcome.timedOut ? 'did not answer in time' : 'could not be reached';
    return new LicensingError('SERVICE_UNAVAILABLE', `The event service ${what} (${outcome.url})`, {
      cause: outcome.error,
    });
  }
  const body = parseApiError(outcome.body);
  const code = codeForStatus(outcome.status);
  const detail = body.error
    ? `${body.error}${body.errorDescription ? `: ${body.errorDescription}` : ''}`
    : `HTTP ${outcome.status}`;
  return new ApiResponseError(code, `The event service refused the request (${detail})`, {
    status: outcome.status,
    url: outcome.url,
    service: 'events',
    ...(body.error === undefined ? {} : { error: body.error }),
    ...(body.errorDescription === undefined ? {} : { errorDescription: body.errorDescription }),
  });
}

function codeForStatus(status: number): LicensingErrorCode {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 404) return 'NOT_FOUND';
  if (status >= 400 && status < 500) return 'REQUEST_REJECTED';
  return 'SERVICE_UNAVAILABLE';
}

function parseApiError(text: string): { error?: string; errorDescription?: string } {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== 'object' || body === null) return {};
    const { error, error_description } = body as Record<string, unknown>;
    return {
      ...(typeof error === 'string' ? { error } : {}),
      ...(typeof error_description === 'string' ? { errorDescription: error_description } : {}),
    };
  } catch {
    return {};
  }
}
