// CONTRACT between the SDK helpers: the types below are fixed; the implementation
// (createLeaseVerifier) is built by the auth/verify helper in this file.

/** A root certificate embedded in the app. */
export interface TrustedRoot {
  /** PEM text of the root certificate. */
  pem: string;
  /** The standby signing key id this root belongs to; the SDK then sends `Service-SigningKeyId`. */
  keyId?: string;
}

/** A JWK set as the services publish it. */
export interface JwkSet {
  keys: Array<Record<string, unknown>>;
}

/** Claims of a verified lease token (the item claim, `lic`, `jti`, `iat`, `exp`, `rfr`, echoes). */
export type LeaseClaims = Record<string, unknown> & {
  iat: number;
  exp: number;
  jti?: string;
  lic?: string;
  rfr?: number;
  iss?: string;
  sub?: string;
};

/**
 * Verifies lease JWTs from either service: JWKS per service and `kid` (cached, refetched once on
 * an unknown `kid`, last good copy kept when a refetch fails), full `x5c` chain up to an embedded
 * root (signatures, validity dates, CA flag), `x5c[0]` modulus equal to the JWK `n`, RS256
 * signature, `exp`/`iat` with clock tolerance, and the item claim. Chain results are cached per
 * key so steady-state verification costs one RSA verify.
 * Failures reject with a LicensingError of code TOKEN_INVALID (cause: the detail).
 */
export interface LeaseVerifier {
  verify(
    token: string,
    options: { service: 'main' | 'standby'; item?: string; signal?: AbortSignal },
  ): Promise<LeaseClaims>;
}

/** Fetches a service's JWK set (the client supplies it, with the service's authorization). */
export type JwksLoader = (service: 'main' | 'standby', signal?: AbortSignal) => Promise<JwkSet>;
