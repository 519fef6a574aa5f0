// The one place that decides whether a token is a lease (DECISIONS.md "Lease trust (third
// wave)"): its form, its signing key (handed down by the service's key source), the certificate
// dates, the signature, the claims a lease has, the times, the item and the device.
import { TokenInvalidError, type TokenInvalidReason } from '../errors.js';
import { formatTime } from '../internal/format-time.js';
import type { LeaseClaims } from '../types.js';
import { assertPathValidAt, ChainError } from './certificate-chain.js';
import { type LeaseToken, readLeaseToken } from './lease-token.js';
import type { ServiceKeys } from './service-keys.js';
import type { VerifiedKey } from './signing-key-check.js';

/** How a signed answer is judged: at which time, with which tolerance. */
export interface AnswerRules {
  /** The time to judge `exp`, `nbf`, `iat` and the certificates at, in ms since the epoch. */
  at: number;
  /**
   * Clock difference allowed for `exp`, `nbf`, `iat` and certificate dates, in ms; a token whose
   * `iat` is further ahead of `at` is refused.
   */
  toleranceMs: number;
}

/** How a lease is judged: {@link AnswerRules} plus the item and the device. */
export interface LeaseRules extends AnswerRules {
  /** The item the lease must grant (`<item>: true`). */
  item: string;
  /** When set, the lease's `hw` claim must be exactly this (the lease is bound to the device). */
  hardwareId?: string | undefined;
}

/**
 * Refusals that say the token itself is bad, whatever the keys or the clock: a saved lease
 * refused for one of these leaves the lease store. A refusal for a key lookup (`kid`, `key`,
 * `chain`, `modulus`), a certificate date, the clock (`expired`, `not-yet-valid`) or the device
 * (`hardware`) keeps it.
 */
export const FINAL_REFUSALS: ReadonlySet<TokenInvalidReason> = new Set([
  'malformed',
  'alg',
  'signature',
  'not-a-lease',
  'item',
]);

function isNumber(value: unknown): value is number {
  return Number.isFinite(value);
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** The service's trusted key for the token, or the reason there is none. */
async function keyFor(token: LeaseToken, keys: ServiceKeys): Promise<VerifiedKey> {
  const key = keys.find(token.kid) ?? (await keys.trustKept(token.kid));
  if (!key) throw keys.refusal(token.kid);
  return key;
}

/**
 * Verifies a token the service signed and returns its claims: the certificates of its key valid
 * at `rules.at`, the RS256 signature, numeric `iat` and `exp`, `exp` not passed, `nbf` and `iat`
 * not ahead. What the token says (a lease, a release, a denial) is the caller's to check.
 *
 * @throws TokenInvalidError naming the failed check.
 */
export async function verifySignedToken(
  token: string | LeaseToken,
  keys: ServiceKeys,
  rules: AnswerRules,
): Promise<LeaseClaims> {
  const parsed = typeof token === 'string' ? readLeaseToken(token) : token;
  const key = await keyFor(parsed, keys);
  const { at, toleranceMs } = rules;
  try {
    assertPathValidAt(key.validity, at, toleranceMs);
  } catch (cause) {
    const reason = cause instanceof ChainError ? cause.failure : 'chain';
    throw new TokenInvalidError(
      reason,
      `the signing key ${parsed.kid}: ${String((cause as Error).message)}`,
      {
        cause,
      },
    );
  }
  let valid: boolean;
  try {
    valid = await key.verify(parsed.signingInput, parsed.signature);
  } catch (cause) {
    throw new TokenInvalidError('signature', 'the token signature cannot be checked', { cause });
  }
  if (!valid) throw new TokenInvalidError('signature', 'the token signature does not verify');
  const { claims } = parsed;
  if (!isNumber(claims.iat) || !isNumber(claims.exp)) {
    throw new TokenInvalidError('malformed', 'the token lacks a numeric iat or exp claim');
  }
  if (claims.nbf !== undefined && !isNumber(claims.nbf)) {
    throw new TokenInvalidError('malformed', 'the token has an nbf claim that is not a number');
  }
  if (claims.exp * 1000 < at - toleranceMs) {
    throw new TokenInvalidError(
      'expired',
      `the token expired at ${formatTime(claims.exp * 1000)} (judged at ${formatTime(at)})`,
    );
  }
  if (isNumber(claims.nbf) && claims.nbf * 1000 > at + toleranceMs) {
    throw new TokenInvalidError(
      'not-yet-valid',
      `the token is not valid before ${formatTime(claims.nbf * 1000)} (judged at ${formatTime(at)})`,
    );
  }
  if (claims.iat * 1000 > at + toleranceMs) {
    throw new TokenInvalidError(
      'not-yet-valid',
      `the token was issued at ${formatTime(claims.iat * 1000)}, ahead of ${formatTime(at)}: check the system clock`,
    );
  }
  return claims as LeaseClaims;
}

/**
 * Decides whether `token` is a lease for `rules.item` from the service whose keys are `keys`:
 * a verified signed token ({@link verifySignedToken}) whose claims hold `<item>: true`, a
 * non-empty string `jti` and `lic`, and, when `rules.hardwareId` is set, that `hw`. Anything
 * else, a release answer above all, is never a lease.
 *
 * @returns The verified claims.
 * @throws TokenInvalidError with the failed check as `reason` (`item`, `not-a-lease`,
 *   `hardware`, or one of {@link verifySignedToken}'s).
 * @example
 * const claims = await verifyLease(token, standbyKeys, { item: 'ItemA', at: clock.now(), toleranceMs: 60_000 });
 */
export async function verifyLease(
  token: string | LeaseToken,
  keys: ServiceKeys,
  rules: LeaseRules,
): Promise<LeaseClaims> {
  return checkLeaseClaims(await verifySignedToken(token, keys, rules), rules);
}

/**
 * The one item a verified token grants (`<item>: true`), for a caller that was not told which.
 *
 * @throws TokenInvalidError `item` when it grants none or several.
 */
export function soleGrantedItem(claims: LeaseClaims): string {
  const granted = Object.keys(claims).filter((key) => claims[key] === true);
  if (granted.length !== 1) {
    throw new TokenInvalidError(
      'item',
      `the token grants ${granted.length} items, a lease exactly one: pass the item to check`,
    );
  }
  return granted[0]!;
}

/**
 * The lease part of {@link verifyLease}, on claims whose signature and times were verified:
 * `<item>: true`, a non-empty `jti` and `lic`, and the device.
 *
 * @throws TokenInvalidError `item`, `not-a-lease` or `hardware`.
 */
export function checkLeaseClaims(
  claims: LeaseClaims,
  rules: Pick<LeaseRules, 'item' | 'hardwareId'>,
): LeaseClaims {
  const { item, hardwareId } = rules;
  if (claims[item] !== true) {
    const errorCode = claims[`${item}_errorCode`];
    throw new TokenInvalidError(
      'item',
      `the token does not grant ${item}${typeof errorCode === 'string' ? ` (${errorCode})` : ''}`,
    );
  }
  if (!isId(claims.jti) || !isId(claims.lic)) {
    throw new TokenInvalidError(
      'not-a-lease',
      `the token grants ${item} but is not a lease: it lacks a lease id (jti) or a license id (lic)`,
    );
  }
  if (hardwareId !== undefined && claims.hw !== hardwareId) {
    throw new TokenInvalidError(
      'hardware',
      `the lease is bound to another device (hw ${JSON.stringify(claims.hw) ?? 'absent'}, this device ${JSON.stringify(hardwareId)})`,
    );
  }
  return claims;
}
