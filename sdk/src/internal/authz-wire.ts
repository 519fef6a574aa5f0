// The `/authz/.jwt` wire format (docs/protocol.md, "Leases"): bare item parameters, per-item
// attributes after `=;`, reserved `hw`/`version`, release as `release&<leaseId>`, tokens joined
// by `&`.

/** Request details echoed into every lease. */
export interface AuthzEchoes {
  hardwareId?: string | undefined;
  hardwareName?: string | undefined;
  version?: string | undefined;
}

/** One item of a checkout request, optionally pinned to a license id. */
export interface AuthzItem {
  item: string;
  licenseId?: string | undefined;
}

const enc = encodeURIComponent;

function echoParams(echoes: AuthzEchoes): string[] {
  const params: string[] = [];
  if (echoes.hardwareId !== undefined) {
    params.push(
      echoes.hardwareName === undefined
        ? `hw=${enc(echoes.hardwareId)}`
        : `hw=${enc(echoes.hardwareId)};name=${enc(echoes.hardwareName)}`,
    );
  }
  if (echoes.version !== undefined) params.push(`version=${enc(echoes.version)}`);
  return params;
}

/** Query of the echoes alone (`hw=H&version=V`), e.g. for the main service's checkout action. */
export function buildEchoQuery(echoes: AuthzEchoes): string {
  return echoParams(echoes).join('&');
}

/** Query of a new checkout: `ItemA&ItemB=;licenseId=L1&hw=H&version=V`. */
export function buildCheckoutQuery(items: readonly AuthzItem[], echoes: AuthzEchoes): string {
  const params = items.map(({ item, licenseId }) =>
    licenseId === undefined ? enc(item) : `${enc(item)}=;licenseId=${enc(licenseId)}`,
  );
  return [...params, ...echoParams(echoes)].join('&');
}

/** Query of a renewal: `ItemA=;leaseId=J1&hw=H&version=V`. */
export function buildRenewQuery(item: string, leaseId: string, echoes: AuthzEchoes): string {
  return [`${enc(item)}=;leaseId=${enc(leaseId)}`, ...echoParams(echoes)].join('&');
}

/** Query of a release: `release&J1&J2`. */
export function buildReleaseQuery(leaseIds: readonly string[]): string {
  return ['release', ...leaseIds.map(enc)].join('&');
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** True when `text` has the shape of a compact JWS (three base64url parts). */
export function isCompactJwt(text: string): boolean {
  return COMPACT_JWS.test(text);
}

/**
 * Splits an `application/jwt` body into its tokens (joined by `&`, in request order).
 * Returns undefined when any part is not a compact JWS, e.g. an HTML error page.
 */
export function splitTokens(body: string): string[] | undefined {
  const parts = body.trim().split('&');
  return parts.length > 0 && parts.every(isCompactJwt) ? parts : undefined;
}
