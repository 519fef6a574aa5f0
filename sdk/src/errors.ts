/**
 * Every error code the SDK throws. The first six are fixed by the contract (DECISIONS.md);
 * the rest cover the event service and plain HTTP refusals.
 */
export type LicensingErrorCode =
  | 'SERVICE_UNAVAILABLE'
  | 'UNAUTHORIZED'
  | 'STANDBY_DORMANT'
  | 'TOKEN_INVALID'
  | 'ID_TOKEN_EXPIRED'
  | 'INVALID_ARGUMENT'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'REQUEST_REJECTED'
  | 'FEED_CURSOR_REPEATED'
  | 'LICENSE_DENIED'
  | 'CLIENT_CLOSED';

/** Options of {@link LicensingError}. */
export interface LicensingErrorOptions {
  cause?: unknown;
}

/**
 * Base class of every error the SDK throws on purpose. Branch on `code`, not on the message.
 *
 * @example
 * try { await client.checkout(['ItemA']); }
 * catch (err) { if (isLicensingError(err) && err.code === 'SERVICE_UNAVAILABLE') showOffline(); }
 */
export class LicensingError extends Error {
  override name = 'LicensingError';
  readonly code: LicensingErrorCode;

  constructor(code: LicensingErrorCode, message: string, options: LicensingErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** Which service answered: the main or the standby licensing service, or the event service. */
export type ServiceName = 'main' | 'standby' | 'events';

/** Fields of {@link ApiResponseError}. */
export interface ApiResponseErrorInit extends LicensingErrorOptions {
  status: number;
  url: string;
  service: ServiceName;
  /** The ApiError body's `error`, when the body was one. */
  error?: string;
  /** The ApiError body's `error_description`, when present. */
  errorDescription?: string;
}

/**
 * A service answered with an HTTP error status. Carries the status, the URL and the spec's
 * ApiError fields (`error`, `error_description`) when the body had them.
 */
export class ApiResponseError extends LicensingError {
  override name = 'ApiResponseError';
  readonly status: number;
  readonly url: string;
  readonly service: ServiceName;
  readonly error: string | undefined;
  readonly errorDescription: string | undefined;

  constructor(code: LicensingErrorCode, message: string, init: ApiResponseErrorInit) {
    super(code, message, init);
    this.status = init.status;
    this.url = init.url;
    this.service = init.service;
    this.error = init.error;
    this.errorDescription = init.errorDescription;
  }
}

/**
 * True for any {@link LicensingError}, also across bundles or realms (matches by `name` and
 * `code` when `instanceof` fails).
 */
export function isLicensingError(value: unknown): value is LicensingError {
  if (value instanceof LicensingError) return true;
  return (
    value instanceof Error &&
    typeof (value as { code?: unknown }).code === 'string' &&
    /Error$/.test(value.name) &&
    'code' in value &&
    ['LicensingError', 'ApiResponseError'].includes(value.name)
  );
}
