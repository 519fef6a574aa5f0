// A lease from a verified token: building it, reading a main-service denial, recognising one.
import type { DeniedItem, Lease, LeaseClaims, LicensingService } from '../types.js';

/** Share of the lease after which a lease without `rfr` is renewed. */
const REFRESH_SHARE = 0.75;

/** Builds a {@link Lease} from a verified token's claims. */
export function toLease(
  item: string,
  token: string,
  claims: LeaseClaims,
  servedBy: LicensingService,
): Lease {
  const issuedAt = claims.iat * 1000;
  const expiresAt = claims.exp * 1000;
  const refreshAt =
    typeof claims.rfr === 'number'
      ? claims.rfr * 1000
      : issuedAt + Math.round((expiresAt - issuedAt) * REFRESH_SHARE);
  return {
    item,
    leaseId: typeof claims.jti === 'string' ? claims.jti : '',
    licenseId: typeof claims.lic === 'string' ? claims.lic : '',
    token,
    claims,
    expiresAt,
    refreshAt,
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
