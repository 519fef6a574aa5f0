import type { KeyObject } from 'node:crypto';
import type { SigningPool } from '../crypto/signing-pool.js';
import { buildLeaseClaims, type LeaseClaimsOptions } from './lease-claims.js';
import type { AuthzRequest } from './parse-authz-request.js';

/** The key that signs leases. */
export interface LeaseSigner {
  kid: string;
  privateKey: KeyObject;
}

/** Options of {@link issueLeaseTokens}: the claims' options plus the signer and its pool. */
export interface IssueLeaseTokensOptions extends LeaseClaimsOptions {
  signer: LeaseSigner;
  /** Signs the tokens (worker threads, or inline with 0 threads). */
  signingPool: SigningPool;
}

/**
 * Answers a parsed `/authz/.jwt` request: the claims of {@link buildLeaseClaims} (built here, on
 * the calling thread), each signed as an RS256 token by `signingPool`, joined by `&` in request
 * order (a release: one token naming every lease id).
 *
 * @example
 * const body = await issueLeaseTokens(parseAuthzRequest('ItemA'), { issuer, subject: 'u1',
 *   now: Date.now(), signer: { kid, privateKey }, signingPool: app.signingPool });
 */
export async function issueLeaseTokens(
  request: AuthzRequest,
  options: IssueLeaseTokensOptions,
): Promise<string> {
  const tokens = await signLeaseClaims(buildLeaseClaims(request, options), options);
  return tokens.join('&');
}

/**
 * Signs claims built by {@link buildLeaseClaims}, one RS256 token each, in order.
 *
 * @example
 * const tokens = await signLeaseClaims(claims, { signer, signingPool: app.signingPool });
 */
export function signLeaseClaims(
  claims: Record<string, unknown>[],
  options: Pick<IssueLeaseTokensOptions, 'signer' | 'signingPool'>,
): Promise<string[]> {
  const { signer, signingPool } = options;
  const header = { alg: 'RS256', kid: signer.kid, typ: 'JWT' };
  return signingPool.signTokens(header, claims, signer.privateKey);
}
