// A lease from a verified token: building it, reading a main-service denial, recognising one.
import type { DeniedItem, Lease, LeaseClaims, LicensingService } from '../types.js';

/** Share of the lease after which a lease without `rfr` is renewed. */
const REFRESH_SHARE = 0.75;

/**
 * When a lease should be renewed, on the services' clock (ms): its `rfr` claim, else 75 % into
 * the lease.
 *
 * @example
 * if (clock.now() >= refreshTimeOf(lease.claims)) await client.renew(lease);
 */
export function refreshTimeOf(claims: Pick<LeaseClaims, 'iat' | 'exp' | 'rfr'>): number {
  const issuedAt = claims.iat * 1000;
  const expiresAt = claims.exp * 1000;
  return typeof claims.rfr === 'number' && Number.isFinite(claims.rfr)
    ? claims.rfr * 1000
    : issuedAt + Math.round((expiresAt - issuedAt) * REFRESH_SHARE);
}

/**
 * Builds a {@link Lease} from the claims `verifyLease` accepted. `expiresAt` and `refreshAt` are
 * on the local clock: the services' times minus `offsetMs` (services − local), so a keeper
 * renews on time on a clock that is off.
 */
export function toLease(
  item: string,
  token: string,
  claims: LeaseClaims,
  servedBy: LicensingService,
  offsetMs: number,
): Lease {
  const expiresAt = claims.exp * 1000;
  const refreshAt = refreshTimeOf(claims);
  return {
    item,
    leaseId: claims.jti as string,
    licenseId: claims.lic as string,
    token,
    claims,
    expiresAt: expiresAt - offsetMs,
    refreshAt: refreshAt - offsetMs,
    servedBy,
  };
}

/** The denial in a main-service token, or undefined when it grants `item`. */
export function readDenial(item: string, claims: Record<string, unknown>): DeniedItem | undefined {
  if (claims[item] === true) return undefined;
  const code = claims[`${item}_errorCode`];
  if (typeof code !== 'string') return undefined;
  const message = claims[`${item}_errorMessage`];
  return typeof message === 'string' ? { item, code, message } : { item, code };
}

/** True for a value shaped like a {@link Lease} returned by checkout or renew. */
export function isLease(value: unknown): value is Lease {
  const lease = value as Lease | undefined;
  return (
    typeof lease === 'object' &&
    lease !== null &&
    typeof lease.item === 'string' &&
    typeof lease.leaseId === 'string' &&
    lease.leaseId !== '' &&
    (lease.servedBy === 'main' || lease.servedBy === 'standby')
  );
}
