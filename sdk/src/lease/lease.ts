import type { LicensingService } from '../failover/classify-failure.js';
import type { LeaseClaims } from './lease-verifier.js';

/** A verified license lease for one item. */
export interface Lease {
  /** The licensed item this lease grants. */
  readonly item: string;
  /** The lease id (`jti`): what renewals and releases name. */
  readonly leaseId: string;
  /** The license id (`lic`). */
  readonly licenseId: string;
  /** The compact JWT as received; store it to re-verify later with `client.verify`. */
  readonly token: string;
  /** The verified claims. */
  readonly claims: LeaseClaims;
  /** End of the lease (`exp`), in ms since the epoch. */
  readonly expiresAt: number;
  /** When to renew (`rfr`, else 75 % of the lease), in ms since the epoch. */
  readonly refreshAt: number;
  /** Which service issued it. */
  readonly servedBy: LicensingService;
}

/** A requested item the main service refused in an otherwise good answer (`<item>_errorCode`). */
export interface DeniedItem {
  item: string;
  /** The service's code, e.g. `noLicenseFound`. */
  code: string;
  message?: string;
}

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
