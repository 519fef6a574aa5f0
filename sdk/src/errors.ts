import type { ServiceName } from './types.js';

/**
 * Every error code the SDK throws: the licensing codes (`SERVICE_UNAVAILABLE` to
 * `INVALID_ARGUMENT`), then the event service, plain HTTP refusals and the client's own states.
 * The package README's error table says when each occurs, what to do and what to show the user
 * (https://github.com/standby-licensing/standby-licensing/tree/main/sdk#errors).
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
  | 'CLIENT_CLOSED'
  | 'CLOCK_ROLLBACK'
  | 'LEASE_STORE_INVALID';

/** Options of {@link LicensingError}. */
export interface LicensingErrorOptions {
  cause?: unknown;
  /** A machine-readable detail of the code (see {@link LicensingError.reason}). */
  reason?: string;
}

/**
 * Base class of every error the SDK throws on purpose. Branch on `code` (and `reason` where
 * given), never on the message.
 *
 * @example
 * try { await client.checkout(['ItemA']); }
 * catch (err) { if (isLicensingError(err) && err.code === 'SERVICE_UNAVAILABLE') showOffline(); }
 */
export class LicensingError extends Error {
  override name = 'LicensingError';
  readonly code: LicensingErrorCode;
  /**
   * A machine-readable detail of `code`, when the SDK knows one: which verification check failed
   * for `TOKEN_INVALID` ({@link TokenInvalidReason}), or `id-token-provider-failed`,
   * `id-token-provider-timeout`, `id-token-malformed`, `id-token-expired` for an ID-token
   * provider problem behind `UNAUTHORIZED`. For `SERVICE_UNAVAILABLE`: `proxy` when every
   * attempt failed at a proxy (unreachable, or refusing with 407 or 403), `tls` when every
   * attempt failed the TLS check (a certificate not trusted, expired or for another host): the
   * network, not the licensing service, is in the way, and the message says what to check.
   * Inside a `cause`, `circuit-open` marks main as not tried (its circuit breaker is open). For
   * `INVALID_ARGUMENT`: `network-setup` when a request needed the SDK's network module (a proxy
   * or `tls.ca`) and it could not be loaded (an app bundled into one file, undici missing): the
   * app's packaging, not an outage, so there was no failover.
   */
  readonly reason: string | undefined;

  constructor(code: LicensingErrorCode, message: string, options: LicensingErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.reason = options.reason;
  }
}

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
 * A service answered with an HTTP error status. Carries the status, the URL and the fields of the
 * services' ApiError body (`error`, `error_description`) when the body had them; see
 * https://github.com/standby-licensing/standby-licensing/blob/main/docs/protocol.md#the-apierror-body
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
 * Which check a lease token failed:
 * - `malformed`: not three strict base64url segments, undecodable header or claims, no `kid`,
 *   `crit`/`b64` in the header, no numeric `exp`/`iat`
 * - `alg`: the header's `alg` is not RS256
 * - `kid`: the service publishes no key with the token's `kid`
 * - `key`: the published JWK is not a usable RSA signing key
 * - `chain`: its `x5c` chain does not lead to an embedded root (structure, CA flags, signatures)
 * - `certificate-expired` / `certificate-not-yet-valid`: a certificate of the chain is outside
 *   its validity at the current time
 * - `modulus`: `x5c[0]`'s modulus or exponent differs from the JWK's `n`/`e`
 * - `signature`: the token's signature does not verify
 * - `expired` / `not-yet-valid`: `exp` passed, or `nbf`/`iat` lies in the future
 * - `item`: the token does not grant the requested item
 * - `not-a-lease`: a signed token that grants the item but is not a lease (no `jti` or `lic`),
 *   e.g. a release answer
 * - `hardware`: the lease's `hw` is not this client's `hardwareId`
 */
export type TokenInvalidReason =
  | 'malformed'
  | 'alg'
  | 'kid'
  | 'key'
  | 'chain'
  | 'certificate-expired'
  | 'certificate-not-yet-valid'
  | 'modulus'
  | 'signature'
  | 'expired'
  | 'not-yet-valid'
  | 'item'
  | 'not-a-lease'
  | 'hardware';

/**
 * Why a lease store cannot be trusted (`LEASE_STORE_INVALID`): `unreadable` (an I/O error; it is
 * read again before the next write, never overwritten), `malformed` (not a lease store document),
 * `edited` (its time mark is missing, out of range or earlier than a lease it holds), `sealed`
 * (`unseal` refused its text), `unwritable` (a save failed: the app keeps working on the leases
 * it holds, and the next change tries again).
 */
export type LeaseStoreInvalidReason =
  | 'unreadable'
  | 'malformed'
  | 'edited'
  | 'sealed'
  | 'unwritable';

/**
 * A lease token failed verification (code `TOKEN_INVALID`); `reason` says which check failed.
 *
 * @example
 * if (err instanceof TokenInvalidError && err.reason === 'expired') await client.checkout([item]);
 */
export class TokenInvalidError extends LicensingError {
  override name = 'TokenInvalidError';
  declare readonly code: 'TOKEN_INVALID';
  declare readonly reason: TokenInvalidReason;

  constructor(reason: TokenInvalidReason, message: string, options: { cause?: unknown } = {}) {
    super('TOKEN_INVALID', message, { ...options, reason });
  }
}

/**
 * A constructor option is missing, of the wrong type or out of range: a {@link LicensingError}
 * with code `INVALID_ARGUMENT` and the option's path, thrown when the client is made, so a typo
 * fails at start-up, not mid-outage.
 *
 * @example
 * try { createLicensingClient(options); }
 * catch (err) { if (err instanceof InvalidOptionError) console.error(err.option, err.message); }
 */
export class InvalidOptionError extends LicensingError {
  override name = 'InvalidOptionError';
  declare readonly code: 'INVALID_ARGUMENT';
  /** Path of the offending option, e.g. `failover.mainAttempts`. */
  readonly option: string;

  constructor(option: string, message: string, options: { cause?: unknown } = {}) {
    super('INVALID_ARGUMENT', message, options);
    this.option = option;
  }
}

/**
 * A lease store exists but cannot be trusted (code `LEASE_STORE_INVALID`); `reason` says why.
 *
 * @example
 * if (err instanceof LeaseStoreInvalidError && err.reason === 'unreadable') retryLater();
 */
export class LeaseStoreInvalidError extends LicensingError {
  override name = 'LeaseStoreInvalidError';
  declare readonly code: 'LEASE_STORE_INVALID';
  declare readonly reason: LeaseStoreInvalidReason;

  constructor(reason: LeaseStoreInvalidReason, message: string, options: { cause?: unknown } = {}) {
    super('LEASE_STORE_INVALID', message, { ...options, reason });
  }
}

const ERROR_NAMES = [
  'LicensingError',
  'ApiResponseError',
  'TokenInvalidError',
  'LeaseStoreInvalidError',
  'InvalidOptionError',
];

/**
 * True for any {@link LicensingError}, also across bundles or realms (matches by `name` and
 * `code` when `instanceof` fails).
 */
export function isLicensingError(value: unknown): value is LicensingError {
  if (value instanceof LicensingError) return true;
  return (
    value instanceof Error &&
    typeof (value as { code?: unknown }).code === 'string' &&
    ERROR_NAMES.includes(value.name)
  );
}
