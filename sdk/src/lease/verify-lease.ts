// The one place that decides whether a token is a lease (docs/trust-model.md, "Only leases are
// leases"): its form, its signing key (handed down by the service's key source), the certificate
// dates, the signature, the claims a lease has, the times, the item and the device.
import { TokenInvalidError, type TokenInvalidReason } from '../errors.js';
import { formatTime } from '../internal/format-time.js';
import type { LeaseClaims } from '../types.js';
import { assertPathValidAt, ChainError } from './certificate-chain.js';
import { type LeaseToken, readLeaseToken } from './lease-token.js';
import type { KeyLookup, ServiceKeys } from './service-keys.js';

/** How a signed answer is judged: at which time, with which tolerance. */
export interface AnswerRules {
  /**
   * The time to judge `exp`, `nbf`, `iat` and the certificates at, in ms since the epoch; a
   * function is read once the key is known (fetching the service's keys may teach the clock).
   */
  at: number | (() => number);
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

/** What to do about a token whose signature or claims were altered. */
const ALTERED_ADVICE =
  'Check that the token comes unaltered from the licensing service that issued it, or check the item out again.';

function isNumber(value: unknown): value is number {
  return Number.isFinite(value);
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * Verifies a token the service signed and returns its claims: the key of its `kid` from the
 * service's key source (`lookup`: whether it may fetch the JWK set), the certificates of that key
 * valid at `rules.at`, the RS256 signature, numeric `iat` and `exp`, `exp` not passed, `nbf` and
 * `iat` not ahead. What the token says (a lease, a release, a denial) is the caller's to check.
 *
 * @throws TokenInvalidError naming the failed check; the key source's outage when it could not
 *   fetch the service's JWK set.
 */
export async function verifySignedToken(
  token: string | LeaseToken,
  keys: ServiceKeys,
  rules: AnswerRules,
  lookup: KeyLookup = { fetch: false },
): Promise<LeaseClaims> {
  const parsed = typeof token === 'string' ? readLeaseToken(token) : token;
  // The hot path finds a trusted key without a promise.
  const key = keys.find(parsed.kid) ?? (await keys.keyFor(parsed.kid, lookup));
  const { toleranceMs } = rules;
  const at = typeof rules.at === 'function' ? rules.at() : rules.at;
  try {
    assertPathValidAt(key.validity, at, toleranceMs);
  } catch (cause) {
    const reason = cause instanceof ChainError ? cause.failure : 'chain';
    throw new TokenInvalidError(
      reason,
      `the signing key ${parsed.kid}: ${String((cause as Error).message)}. Check the system clock; if it is right, embed the service's current root (npx standby-licensing embed-root --help).`,
      {
        cause,
      },
    );
  }
  let valid: boolean;
  try {
    valid = await key.verify(parsed.signingInput, parsed.signature);
  } catch (cause) {
    throw new TokenInvalidError(
      'signature',
      `the token signature cannot be checked. ${ALTERED_ADVICE}`,
      { cause },
    );
  }
  if (!valid) {
    throw new TokenInvalidError(
      'signature',
      `the token signature does not verify. ${ALTERED_ADVICE}`,
    );
  }
  const { claims } = parsed;
  if (!isNumber(claims.iat) || !isNumber(claims.exp)) {
    throw new TokenInvalidError(
      'malformed',
      `the token lacks a numeric iat or exp claim. ${ALTERED_ADVICE}`,
    );
  }
  if (claims.nbf !== undefined && !isNumber(claims.nbf)) {
    throw new TokenInvalidError(
      'malformed',
      `the token has an nbf claim that is not a number. ${ALTERED_ADVICE}`,
    );
  }
  if (claims.exp * 1000 < at - toleranceMs) {
    throw new TokenInvalidError(
      'expired',
      `the token expired at ${formatTime(claims.exp * 1000)} (judged at ${formatTime(at)}). Check the item out again; if it was just issued, check the system clock.`,
    );
  }
  if (isNumber(claims.nbf) && claims.nbf * 1000 > at + toleranceMs) {
    throw new TokenInvalidError(
      'not-yet-valid',
      `the token is not valid before ${formatTime(claims.nbf * 1000)} (judged at ${formatTime(at)}). Check the system clock.`,
    );
  }
  if (claims.iat * 1000 > at + toleranceMs) {
    throw new TokenInvalidError(
      'not-yet-valid',
      `the token was issued at ${formatTime(claims.iat * 1000)}, ahead of ${formatTime(at)}. Check the system clock.`,
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
  lookup?: KeyLookup,
): Promise<LeaseClaims> {
  return checkLeaseClaims(await verifySignedToken(token, keys, rules, lookup), rules);
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
      `the token grants ${granted.length} items, a lease exactly one. Pass the item to check (options.item).`,
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
      `the token does not grant ${item}${typeof errorCode === 'string' ? ` (${errorCode})` : ''}. Check the item name, or check ${item} out to get a lease for it.`,
    );
  }
  if (!isId(claims.jti) || !isId(claims.lic)) {
    throw new TokenInvalidError(
      'not-a-lease',
      `the token grants ${item} but is not a lease: it lacks a lease id (jti) or a license id (lic). Pass a lease's token (from checkout or renew), not a release answer.`,
    );
  }
  if (hardwareId !== undefined && claims.hw !== hardwareId) {
    throw new TokenInvalidError(
      'hardware',
      `the lease is bound to another device (hw ${JSON.stringify(claims.hw) ?? 'absent'}, this device ${JSON.stringify(hardwareId)}). Check the item out on this device; if the device's id changed, check hardwareId (machineId).`,
    );
  }
  return claims;
}
