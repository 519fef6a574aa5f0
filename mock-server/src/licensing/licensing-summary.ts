import type { FastifyInstance } from 'fastify';
import type { AuthzRequest } from './parse-authz-request.js';

/**
 * What a licensing request asked for: leases consumed, renewed (items that named their lease),
 * both in one request, or a release.
 */
export type LicensingKind = 'consume' | 'renew' | 'consume+renew' | 'release';

/** A licensing request as the request journal and the metrics count it. */
export interface LicensingSummary {
  kind: LicensingKind;
  /** Items requested, or lease ids released. */
  items: number;
  /** Items answered with a lease (a denied item of main's is not); released ids for a release. */
  granted: number;
  /** Of `granted`, the items that renewed a lease. */
  renewed: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by a licensing route once it has parsed the request (for the journal and metrics). */
    licensing: LicensingSummary | undefined;
  }
}

/**
 * Lets the routes of `app` (a service's plugin) tell what each licensing request was, through
 * `request.licensing`.
 */
export function installLicensingSummary(app: FastifyInstance): void {
  if (!app.hasRequestDecorator('licensing')) app.decorateRequest('licensing', undefined);
}

/**
 * The summary of a parsed `/authz` request and the claims it was answered with (one object per
 * item, a granted one carrying `jti`; for a release one object).
 *
 * @example
 * request.licensing = summarizeLicensing(parsed, claims);
 */
export function summarizeLicensing(
  request: AuthzRequest,
  claims: readonly Record<string, unknown>[],
): LicensingSummary {
  if (request.release) {
    const released = request.release.length;
    return { kind: 'release', items: released, granted: released, renewed: 0 };
  }
  let renewals = 0;
  let granted = 0;
  let renewed = 0;
  request.items.forEach((item, i) => {
    const renewal = item.leaseId !== undefined;
    if (renewal) renewals++;
    if (claims[i]?.jti === undefined) return;
    granted++;
    if (renewal) renewed++;
  });
  const items = request.items.length;
  const kind = renewals === 0 ? 'consume' : renewals === items ? 'renew' : 'consume+renew';
  return { kind, items, granted, renewed };
}
