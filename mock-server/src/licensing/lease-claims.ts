import { randomUUID } from 'node:crypto';
import type { AuthzItem, AuthzRequest } from '@standby-licensing/wire';

/** Lease length: eight hours, in seconds. */
export const LEASE_SECONDS = 28_800;

/** Recommended refresh point: 75 % of the lease, in seconds after `iat`. */
export const REFRESH_SECONDS = 21_600;

/**
 * How the main service answers one requested item: denied (`noLicenseFound`), or granted, with
 * the license whose id becomes `lic` when it names one.
 */
export type ItemDecision = { granted: false } | { granted: true; licenseId?: string };

/** Options of {@link buildLeaseClaims}. */
export interface LeaseClaimsOptions {
  /** `iss`: the issuing service's base URL. */
  issuer: string;
  /** `sub`: the caller. */
  subject: string;
  /** Issue time in ms since the epoch. */
  now: number;
  /**
   * Decides each item (main only). A granted item's `lic` is the decision's license id, else the
   * requested one, else a new one. Default: every item granted.
   */
  decide?: (item: AuthzItem) => ItemDecision;
}

/**
 * The claims of the answer to a parsed `/authz/.jwt` request, before signing: one object per
 * requested item in request order, or for a release one object naming every released lease id.
 * Consumes get a new `jti`; renewals keep the named lease id. A denied item carries
 * `<item>_errorCode: noLicenseFound` and `<item>_errorMessage` instead of `<item>: true`, `lic`,
 * `jti` and `rfr`. The `/authz/.json` form answers these objects as they are.
 *
 * @example
 * const [claims] = buildLeaseClaims(parseAuthzRequest('ItemA'), { issuer, subject: 'u1', now: Date.now() });
 * claims.ItemA; // true
 */
export function buildLeaseClaims(
  request: AuthzRequest,
  options: LeaseClaimsOptions,
): Record<string, unknown>[] {
  const { issuer, subject, decide } = options;
  const iat = Math.floor(options.now / 1000);
  const exp = iat + LEASE_SECONDS;
  if (request.release) {
    const claims: Record<string, unknown> = {};
    for (const id of request.release) claims[id] = true;
    Object.assign(claims, { iss: issuer, sub: subject, iat, exp });
    return [claims];
  }
  return request.items.map((item) => {
    const decision: ItemDecision = decide ? decide(item) : { granted: true };
    if (!decision.granted) {
      return {
        [`${item.name}_errorCode`]: 'noLicenseFound',
        [`${item.name}_errorMessage`]: `No license found for ${item.name}`,
        iss: issuer,
        sub: subject,
        iat,
        exp,
        ...request.echo,
      };
    }
    return {
      [item.name]: true,
      lic: decision.licenseId ?? item.licenseId ?? randomUUID(),
      jti: item.leaseId ?? randomUUID(),
      iss: issuer,
      sub: subject,
      iat,
      exp,
      rfr: iat + REFRESH_SECONDS,
      ...request.echo,
    };
  });
}
