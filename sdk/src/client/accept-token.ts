// How the client's operations accept a token: the key comes from the service's key source
// (which fetches the service's JWK set when it publishes a kid the app does not hold yet), the
// verdict from `lease/verify-lease.ts`, the time it is judged at from the clock, and a verified
// answer teaches the clock the services' time.
import { type LeaseToken, readLeaseToken } from '../lease/lease-token.js';
import { checkLeaseClaims, soleGrantedItem, verifySignedToken } from '../lease/verify-lease.js';
import type { LeaseClaims, LicensingService } from '../types.js';
import type { ClientContext } from './client-context.js';

/** A fresh answer of a service: when it was, by its `Date` header, if it had a readable one. */
export interface FreshAnswer {
  /** The answer's `Date`, in ms. Unsigned: a proxy may have written it. */
  serviceTime: number | undefined;
}

/** A token's `iat` in ms, read before its signature is checked (the check follows at that time). */
function issuedAt(token: LeaseToken): number | undefined {
  const { iat } = token.claims;
  return typeof iat === 'number' && Number.isFinite(iat) ? iat * 1000 : undefined;
}

/**
 * Verifies a token a service just sent as a lease for `item` (docs/trust-model.md), judged on
 * the services' time of the answer (its signed `iat` where the `Date` disagrees).
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
 * its key, signature and times, judged on the services' time of the answer.
 */
export async function acceptFreshAnswer(
  context: ClientContext,
  service: LicensingService,
  token: string | LeaseToken,
  answer: FreshAnswer,
  signal: AbortSignal | undefined,
): Promise<LeaseClaims> {
  const parsed = typeof token === 'string' ? readLeaseToken(token) : token;
  const { clock } = context;
  const at = clock.judgeAt(
    clock.servicesTime({ date: answer.serviceTime, signed: issuedAt(parsed) }),
  );
  return verifySignedToken(
    parsed,
    context.keys[service],
    { at, toleranceMs: context.toleranceMs },
    { signal, fetch: true },
  );
}

/**
 * An answer verified: the clock learns the services' time from it (its `Date` where it agrees
 * with the latest signed `iat` of its tokens, else that `iat`), and the time mark and the
 * running time re-anchor on that truth.
 */
export function learnServiceTime(
  context: ClientContext,
  answer: FreshAnswer,
  verified: readonly LeaseClaims[],
): void {
  const latest = Math.max(...verified.map((claims) => claims.iat * 1000));
  const { clock } = context;
  const time = clock.servicesTime({
    date: answer.serviceTime,
    signed: Number.isFinite(latest) ? latest : undefined,
  });
  if (time !== undefined) clock.observeSigned(time);
}

/**
 * Verifies a token the app kept (the lease store, or `client.verify`) as a lease for `item`
 * (default: the one item it grants) on the client's trusted time. `fetchKeys` lets it fetch the
 * service's JWK set for a `kid` it does not hold (`verify`); without it (`restore`) it uses only
 * the keys it holds. A lease accepted is held at that time: the running time and the time mark
 * rise to it.
 */
export async function acceptKeptLease(
  context: ClientContext,
  service: LicensingService,
  token: string | LeaseToken,
  item: string | undefined,
  fetchKeys: { signal: AbortSignal | undefined } | false,
): Promise<{ item: string; claims: LeaseClaims }> {
  const parsed = typeof token === 'string' ? readLeaseToken(token) : token;
  let judged = 0;
  const at = () => {
    judged = context.clock.now();
    return judged;
  };
  const verified = await verifySignedToken(
    parsed,
    context.keys[service],
    { at, toleranceMs: context.toleranceMs },
    fetchKeys ? { signal: fetchKeys.signal, fetch: true } : { fetch: false },
  );
  const granted = item ?? soleGrantedItem(verified);
  const claims = checkLeaseClaims(verified, { item: granted, hardwareId: context.hardwareId });
  context.clock.held(judged);
  return { item: granted, claims };
}
