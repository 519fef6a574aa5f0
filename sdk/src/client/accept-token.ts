// How the client's operations accept a token: the key comes from the service's key source
// (fetched when the service publishes a kid the app does not hold yet), the verdict from
// `lease/verify-lease.ts`, the time it is judged at from the clock, and a verified answer
// teaches the clock the services' time.
import { type LeaseToken, readLeaseToken } from '../lease/lease-token.js';
import { MAX_CLOCK_SKEW_MS } from '../lease/trusted-clock.js';
import { checkLeaseClaims, soleGrantedItem, verifySignedToken } from '../lease/verify-lease.js';
import type { LeaseClaims, LicensingService } from '../types.js';
import type { ClientContext } from './client-context.js';
import { keysWithKid } from './trusted-keys.js';

/** A fresh answer of a service: when it was, on the services' clock, if the answer said. */
export interface FreshAnswer {
  /** The answer's `Date`, in ms, when it had a readable one. */
  serviceTime: number | undefined;
}

/**
 * The time to judge a fresh answer's token at: the services' time from the answer's `Date`;
 * without one, the token's own `iat` (a service's fresh token was issued just now) when it lies
 * within 24 h of the clock; else the clock.
 */
function judgedAt(context: ClientContext, answer: FreshAnswer, token: LeaseToken): number {
  if (answer.serviceTime !== undefined) return answer.serviceTime;
  const { iat } = token.claims;
  const now = context.clock.now();
  if (typeof iat === 'number' && Math.abs(iat * 1000 - now) <= MAX_CLOCK_SKEW_MS) return iat * 1000;
  return now;
}

/**
 * Verifies a token a service just sent as a lease for `item` (docs/trust-model.md),
 * judged on the services' time.
 *
 * @throws TokenInvalidError for a token that is not such a lease; the transport's outage when
 *   the service's JWK set could not be fetched.
 */
export async function acceptFreshLease(
  context: ClientContext,
  service: LicensingService,
  token: string | LeaseToken,
  item: string,
  answer: FreshAnswer,
  signal: AbortSignal | undefined,
): Promise<LeaseClaims> {
  const verified = await acceptFreshAnswer(context, service, token, answer, signal);
  return checkLeaseClaims(verified, { item, hardwareId: context.hardwareId });
}

/**
 * Verifies a signed token a service just sent that is not a lease (a release answer, a denial):
 * its key, signature and times, judged on the services' time.
 */
export async function acceptFreshAnswer(
  context: ClientContext,
  service: LicensingService,
  token: string | LeaseToken,
  answer: FreshAnswer,
  signal: AbortSignal | undefined,
): Promise<LeaseClaims> {
  const parsed = typeof token === 'string' ? readLeaseToken(token) : token;
  const keys = await keysWithKid(context, service, parsed.kid, signal);
  return verifySignedToken(parsed, keys, {
    at: judgedAt(context, answer, parsed),
    toleranceMs: context.toleranceMs,
  });
}

/**
 * An answer verified: the clock learns the services' time from it (its `Date`, else the latest
 * `iat` of its tokens) and the time mark re-anchors on that truth.
 */
export function learnServiceTime(
  context: ClientContext,
  answer: FreshAnswer,
  verified: readonly LeaseClaims[],
): void {
  if (answer.serviceTime !== undefined) {
    context.clock.observe(answer.serviceTime);
    return;
  }
  const latest = Math.max(...verified.map((claims) => claims.iat * 1000));
  if (Number.isFinite(latest)) context.clock.observe(latest);
}

/**
 * Verifies a token the app kept (the lease store, or `client.verify`) as a lease for `item`
 * (default: the one item it grants) on the app's clock, corrected by the offset learnt online.
 * `fetchKeys` lets it fetch the service's JWK set for a `kid` it does not hold (`verify`);
 * without it (`restore`) it uses only the keys it holds. A lease accepted raises the time mark
 * to that clock.
 */
export async function acceptKeptLease(
  context: ClientContext,
  service: LicensingService,
  token: string | LeaseToken,
  item: string | undefined,
  fetchKeys: { signal: AbortSignal | undefined } | false,
): Promise<{ item: string; claims: LeaseClaims }> {
  const parsed = typeof token === 'string' ? readLeaseToken(token) : token;
  const keys = fetchKeys
    ? await keysWithKid(context, service, parsed.kid, fetchKeys.signal)
    : context.keys[service];
  const verified = await verifySignedToken(parsed, keys, {
    at: context.clock.now(),
    toleranceMs: context.toleranceMs,
  });
  const granted = item ?? soleGrantedItem(verified);
  const claims = checkLeaseClaims(verified, { item: granted, hardwareId: context.hardwareId });
  context.clock.accepted();
  return { item: granted, claims };
}
