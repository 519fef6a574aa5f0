import { type KeyObject, randomUUID } from 'node:crypto';
import type { SigningPool } from '../crypto/signing-pool.js';
import type { AuthzRequest } from './parse-authz-request.js';

/** Lease length: eight hours, in seconds. */
export const LEASE_SECONDS = 28_800;
/** Recommended refresh point: 75 % of the lease, in seconds after `iat`. */
export const REFRESH_SECONDS = 21_600;

/** The key that signs leases. */
export interface LeaseSigner {
  kid: string;
  privateKey: KeyObject;
}

/** Options of {@link issueLeaseTokens}. */
export interface IssueLeaseTokensOptions {
  /** `iss`: the issuing service's base URL. */
  issuer: string;
  /** `sub`: the caller. */
  subject: string;
  /** Issue time in ms since the epoch. */
  now: number;
  signer: LeaseSigner;
  /** Signs the tokens (worker threads, or inline with 0 threads). */
  signingPool: SigningPool;
  /** The catalogue (main only): items it rejects get `noLicenseFound`. Default: all licensed. */
  isLicensed?: (item: string) => boolean;
}

/**
 * Answers a parsed `/authz/.jwt` request: one RS256 token per requested item in request order,
 * joined by `&`, or for a release one token naming every released lease id. Consumes get a new
 * `jti`; renewals keep the named lease id; `lic` is the requested license id or a new one. The
 * claims are built here, on the calling thread; only the signatures go to `signingPool`.
 *
 * @example
 * const body = await issueLeaseTokens(parseAuthzRequest('ItemA'), { issuer, subject: 'u1',
 *   now: Date.now(), signer: { kid, privateKey }, signingPool: app.signingPool });
 */
export async function issueLeaseTokens(
  request: AuthzRequest,
  options: IssueLeaseTokensOptions,
): Promise<string> {
  const { issuer, subject, signer, isLicensed, signingPool } = options;
  const iat = Math.floor(options.now / 1000);
  const exp = iat + LEASE_SECONDS;
  const header = { alg: 'RS256', kid: signer.kid, typ: 'JWT' };

  if (request.release) {
    const claims: Record<string, unknown> = {};
    for (const id of request.release) claims[id] = true;
    Object.assign(claims, { iss: issuer, sub: subject, iat, exp });
    const [token] = await signingPool.signTokens(header, [claims], signer.privateKey);
    return token!;
  }

  const payloads: Record<string, unknown>[] = [];
  for (const item of request.items) {
    let claims: Record<string, unknown>;
    if (isLicensed && !isLicensed(item.name)) {
      claims = {
        [`${item.name}_errorCode`]: 'noLicenseFound',
        [`${item.name}_errorMessage`]: `No license found for ${item.name}`,
        iss: issuer,
        sub: subject,
        iat,
        exp,
        ...request.echo,
      };
    } else {
      claims = {
        [item.name]: true,
        lic: item.licenseId ?? randomUUID(),
        jti: item.leaseId ?? randomUUID(),
        iss: issuer,
        sub: subject,
        iat,
        exp,
        rfr: iat + REFRESH_SECONDS,
        ...request.echo,
      };
    }
    payloads.push(claims);
  }
  const tokens = await signingPool.signTokens(header, payloads, signer.privateKey);
  return tokens.join('&');
}
