// CONTRACT between the SDK helpers: the types below are fixed; the implementation
// (createLeaseVerifier) is built by the auth/verify helper in this file.
import { base64url, type ProtectedHeaderParameters } from 'jose';
import { LicensingError } from '../errors.js';
import { abortable } from '../internal/abortable.js';
import { parsePemBlocks } from '../internal/pem.js';
import { decodeBase64url } from '../internal/platform/base64url.js';
import { createRs256Verifier, type Rs256Verify } from '../internal/platform/rs256-verifier.js';
import { validateDurationOption, validateFunctionOption } from '../internal/validate-option.js';
import {
  assertPathValidAt,
  type PathValidity,
  type TrustAnchor,
  verifyCertificateChain,
} from '../internal/verify-certificate-chain.js';
import { x509 } from '../internal/x509.js';

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

/** What {@link LeaseVerifierOptions.onRootExpiring} receives. */
export interface RootExpiringInfo {
  /** The root's `keyId`, when it was given one. */
  keyId?: string;
  notAfter: Date;
  /** Whole days until `notAfter` (0 or negative once expired). */
  daysLeft: number;
}

/** Options of {@link createLeaseVerifier}. */
export interface LeaseVerifierOptions {
  /** The root certificates embedded in the app; at least one. */
  roots: TrustedRoot[];
  /** Fetches a service's JWK set. */
  loadJwks: JwksLoader;
  /** Clock in ms since the epoch. Default: `Date.now`. */
  now?: () => number;
  /** Allowed clock difference for `exp`, `iat` and certificate validity, in ms. Default: 60 000. */
  clockToleranceMs?: number;
  /**
   * After a JWKS refetch still lacks a `kid`, tokens with that `kid` fail without another fetch
   * for this long, in ms (so a stream of bad tokens cannot hammer the service). Default: 30 000.
   */
  unknownKidCooldownMs?: number;
  /** Called once per root that is within 90 days of its expiry (or past it). Default: none. */
  onRootExpiring?: (info: RootExpiringInfo) => void;
}

type Service = 'main' | 'standby';

const DEFAULT_CLOCK_TOLERANCE_MS = 60_000;
const DEFAULT_UNKNOWN_KID_COOLDOWN_MS = 30_000;
const ROOT_WARNING_MS = 90 * 86_400_000;
const DAY_MS = 86_400_000;

interface ParsedRoot extends TrustAnchor {
  notAfter: number;
  warned: boolean;
}

/** A JWK whose chain was verified: the imported key and the dates to re-check at each use. */
interface VerifiedKey {
  /** Checks an RS256 signature with the key of x5c[0] (node:crypto on Node, else WebCrypto). */
  verify: Rs256Verify;
  validity: PathValidity[];
}

interface JwksLoad {
  promise: Promise<Map<string, Record<string, unknown>>>;
  signal: AbortSignal | undefined;
}

function tokenInvalid(message: string, cause?: unknown): LicensingError {
  return new LicensingError('TOKEN_INVALID', message, cause === undefined ? {} : { cause });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function parseRoots(roots: unknown): ParsedRoot[] {
  if (!Array.isArray(roots) || roots.length === 0) {
    throw new LicensingError('INVALID_ARGUMENT', 'roots must list at least one root certificate');
  }
  return roots.map((root: Partial<TrustedRoot> | undefined, index) => {
    try {
      if (typeof root?.pem !== 'string') throw new TypeError('pem must be a string');
      const block = parsePemBlocks(root.pem).find((candidate) => candidate.label === 'CERTIFICATE');
      if (!block) throw new TypeError('no CERTIFICATE PEM block');
      const cert = new x509.X509Certificate(block.der);
      return {
        cert,
        der: new Uint8Array(cert.rawData),
        ...(typeof root.keyId === 'string' ? { keyId: root.keyId } : {}),
        notAfter: cert.notAfter.getTime(),
        warned: false,
      };
    } catch (cause) {
      throw new LicensingError(
        'INVALID_ARGUMENT',
        `roots[${index}] is not a PEM certificate: ${messageOf(cause)}`,
        { cause },
      );
    }
  });
}

/** Reads and checks the protected header before any key is touched. */
function readHeader(token: unknown): ProtectedHeaderParameters & { kid: string } {
  if (typeof token !== 'string' || token.split('.').length !== 3) {
    throw tokenInvalid('the lease token is not a compact JWS (three dot-separated parts)');
  }
  let header: ProtectedHeaderParameters;
  try {
    header = decodeJsonSegment(token.slice(0, token.indexOf('.'))) as ProtectedHeaderParameters;
  } catch (cause) {
    throw tokenInvalid(`the lease token header cannot be decoded: ${messageOf(cause)}`, cause);
  }
  if (header.alg !== 'RS256') {
    throw tokenInvalid(
      `the lease token alg is ${JSON.stringify(header.alg)}; only RS256 is accepted`,
    );
  }
  if (typeof header.kid !== 'string' || header.kid.length === 0) {
    throw tokenInvalid('the lease token header has no kid');
  }
  if (header.crit !== undefined || header.b64 !== undefined) {
    throw tokenInvalid('the lease token header carries crit or b64, which leases never use');
  }
  return header as ProtectedHeaderParameters & { kid: string };
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A base64url JSON object segment of a JWS; throws on anything else. */
function decodeJsonSegment(segment: string): Record<string, unknown> {
  const value: unknown = JSON.parse(fromUtf8.decode(decodeBase64url(segment)));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError('not a JSON object');
  }
  return value as Record<string, unknown>;
}

/**
 * Checks the RS256 signature of a compact JWS whose header was already read, then decodes its
 * claims and checks their shape (`exp` and `iat` numbers). Times are checked by the caller.
 */
async function verifySignedClaims(token: string, verify: Rs256Verify): Promise<LeaseClaims> {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  let valid: boolean;
  try {
    valid = await verify(utf8.encode(`${header}.${payload}`), signature);
  } catch (cause) {
    throw tokenInvalid(`the lease token signature cannot be checked: ${messageOf(cause)}`, cause);
  }
  if (!valid) throw tokenInvalid('the lease token does not verify: signature verification failed');
  let claims: Record<string, unknown>;
  try {
    claims = decodeJsonSegment(payload);
  } catch (cause) {
    throw tokenInvalid('the lease token payload is not a JSON object', cause);
  }
  if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') {
    throw tokenInvalid('the lease token lacks a numeric exp or iat claim');
  }
  return claims as LeaseClaims;
}

function parseJwks(jwks: unknown): Map<string, Record<string, unknown>> {
  const keys = (jwks as JwkSet | undefined)?.keys;
  if (!Array.isArray(keys)) throw new TypeError('the JWK set has no keys array');
  const byKid = new Map<string, Record<string, unknown>>();
  for (const jwk of keys) {
    if (jwk && typeof jwk === 'object' && typeof jwk.kid === 'string' && !byKid.has(jwk.kid)) {
      byKid.set(jwk.kid, jwk);
    }
  }
  return byKid;
}

/** Big-endian unsigned integer bytes without leading zeros, from base64url. */
function integerBytes(value: string): string {
  const bytes = base64url.decode(value);
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return base64url.encode(bytes.subarray(start));
}

function checkJwk(jwk: Record<string, unknown>, kid: string): { n: string; e: string } {
  if (jwk.kty !== 'RSA') throw tokenInvalid(`the JWK of kid ${kid} is not an RSA key`);
  if (jwk.alg !== undefined && jwk.alg !== 'RS256') {
    throw tokenInvalid(`the JWK of kid ${kid} is for alg ${String(jwk.alg)}, not RS256`);
  }
  if (jwk.use !== undefined && jwk.use !== 'sig') {
    throw tokenInvalid(`the JWK of kid ${kid} has use ${String(jwk.use)}, not sig`);
  }
  if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string') {
    throw tokenInvalid(`the JWK of kid ${kid} lacks n or e`);
  }
  return { n: jwk.n, e: jwk.e };
}

class DefaultLeaseVerifier implements LeaseVerifier {
  readonly #roots: ParsedRoot[];
  readonly #loadJwks: JwksLoader;
  readonly #now: () => number;
  readonly #toleranceMs: number;
  readonly #cooldownMs: number;
  readonly #onRootExpiring: ((info: RootExpiringInfo) => void) | undefined;
  /** Last good JWK set per service, by kid. */
  readonly #jwks = new Map<Service, Map<string, Record<string, unknown>>>();
  readonly #jwksLoads = new Map<Service, JwksLoad>();
  /** `service kid` → when a refetch last showed that kid missing. */
  readonly #missingKids = new Map<string, number>();
  /** `service kid` → the JWK fingerprint and its verified key (a shared promise). */
  readonly #keys = new Map<
    string,
    { jwk: Record<string, unknown>; fingerprint: string; verified: Promise<VerifiedKey> }
  >();

  constructor(options: LeaseVerifierOptions) {
    validateFunctionOption('loadJwks', options.loadJwks);
    if (options.now !== undefined) validateFunctionOption('now', options.now);
    if (options.onRootExpiring !== undefined) {
      validateFunctionOption('onRootExpiring', options.onRootExpiring);
    }
    this.#roots = parseRoots(options.roots);
    this.#loadJwks = options.loadJwks;
    this.#now = options.now ?? Date.now;
    this.#toleranceMs = validateDurationOption(
      'clockToleranceMs',
      options.clockToleranceMs ?? DEFAULT_CLOCK_TOLERANCE_MS,
    );
    this.#cooldownMs = validateDurationOption(
      'unknownKidCooldownMs',
      options.unknownKidCooldownMs ?? DEFAULT_UNKNOWN_KID_COOLDOWN_MS,
    );
    this.#onRootExpiring = options.onRootExpiring;
    this.#checkRootExpiry();
  }

  async verify(
    token: string,
    options: { service: Service; item?: string; signal?: AbortSignal },
  ): Promise<LeaseClaims> {
    const { service, item, signal } = options;
    signal?.throwIfAborted();
    this.#checkRootExpiry();
    const { kid } = readHeader(token);
    const jwk = await this.#findJwk(service, kid, signal);
    const verified = await abortable(this.#verifiedKey(service, kid, jwk), signal);

    const now = this.#now();
    try {
      assertPathValidAt(verified.validity, now, this.#toleranceMs);
    } catch (cause) {
      throw tokenInvalid(`the certificate chain of kid ${kid}: ${messageOf(cause)}`, cause);
    }

    const claims = await verifySignedClaims(token, verified.verify);
    if (claims.exp * 1000 < now - this.#toleranceMs) {
      throw tokenInvalid(`the lease token expired at ${new Date(claims.exp * 1000).toISOString()}`);
    }
    if (typeof claims.nbf === 'number' && claims.nbf * 1000 > now + this.#toleranceMs) {
      throw tokenInvalid(`the lease token is not valid before ${claims.nbf}`);
    }
    if (claims.iat * 1000 > now + this.#toleranceMs) {
      throw tokenInvalid(`the lease token iat ${claims.iat} is in the future`);
    }
    if (item !== undefined && claims[item] !== true) {
      const errorCode = claims[`${item}_errorCode`];
      throw tokenInvalid(
        `the lease token does not grant ${item}${typeof errorCode === 'string' ? ` (${errorCode})` : ''}`,
      );
    }
    return claims;
  }

  /** The JWK of `kid`: from the cached set, or after one (shared) fetch or refetch. */
  async #findJwk(
    service: Service,
    kid: string,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const cached = this.#jwks.get(service);
    const hit = cached?.get(kid);
    if (hit) return hit;

    const missingKey = `${service} ${kid}`;
    const missingSince = this.#missingKids.get(missingKey);
    if (cached && missingSince !== undefined && this.#now() - missingSince < this.#cooldownMs) {
      throw tokenInvalid(`the ${service} service publishes no key with kid ${kid}`);
    }

    let fresh: Map<string, Record<string, unknown>>;
    try {
      fresh = await this.#fetchJwks(service, signal);
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      const message = cached
        ? `kid ${kid} is not in the cached JWK set of the ${service} service, and refetching it failed: ${messageOf(cause)}`
        : `the JWK set of the ${service} service could not be loaded: ${messageOf(cause)}`;
      throw tokenInvalid(message, cause);
    }
    const jwk = fresh.get(kid);
    if (jwk) {
      this.#missingKids.delete(missingKey);
      return jwk;
    }
    this.#missingKids.set(missingKey, this.#now());
    throw tokenInvalid(`the ${service} service publishes no key with kid ${kid}`);
  }

  /** One JWKS fetch per service at a time; the last good set is kept when a fetch fails. */
  async #fetchJwks(
    service: Service,
    signal: AbortSignal | undefined,
  ): Promise<Map<string, Record<string, unknown>>> {
    let load = this.#jwksLoads.get(service);
    if (!load) {
      const promise = (async () => {
        try {
          const byKid = parseJwks(await this.#loadJwks(service, signal));
          this.#jwks.set(service, byKid);
          return byKid;
        } finally {
          this.#jwksLoads.delete(service);
        }
      })();
      load = { promise, signal };
      this.#jwksLoads.set(service, load);
    }
    try {
      return await abortable(load.promise, signal);
    } catch (error) {
      // The shared fetch was cancelled by the caller that started it, not by us: fetch anew.
      if (load.signal !== signal && load.signal?.aborted && !signal?.aborted) {
        return this.#fetchJwks(service, signal);
      }
      throw error;
    }
  }

  /** The verified key of a JWK, validated once per (service, kid, JWK content). */
  #verifiedKey(service: Service, kid: string, jwk: Record<string, unknown>): Promise<VerifiedKey> {
    const cacheKey = `${service} ${kid}`;
    const entry = this.#keys.get(cacheKey);
    // Hot path: the very JWK object of the cached set (no re-check, no fingerprint of its x5c).
    if (entry?.jwk === jwk) return entry.verified;
    const { n, e } = checkJwk(jwk, kid);
    const fingerprint = JSON.stringify([n, e, jwk.x5c]);
    if (entry?.fingerprint === fingerprint) {
      entry.jwk = jwk;
      return entry.verified;
    }

    const verified = this.#verifyKey(kid, jwk, n, e);
    this.#keys.set(cacheKey, { jwk, fingerprint, verified });
    verified.catch(() => {
      if (this.#keys.get(cacheKey)?.verified === verified) this.#keys.delete(cacheKey);
    });
    return verified;
  }

  async #verifyKey(
    kid: string,
    jwk: Record<string, unknown>,
    n: string,
    e: string,
  ): Promise<VerifiedKey> {
    let path: Awaited<ReturnType<typeof verifyCertificateChain>>;
    try {
      path = await verifyCertificateChain(jwk.x5c, this.#roots);
    } catch (cause) {
      throw tokenInvalid(`the certificate chain of kid ${kid}: ${messageOf(cause)}`, cause);
    }
    let key: CryptoKey;
    let leafJwk: JsonWebKey;
    let verify: Rs256Verify;
    try {
      verify = await createRs256Verifier(path.leaf.publicKey.rawData);
      key = await globalThis.crypto.subtle.importKey(
        'spki',
        path.leaf.publicKey.rawData,
        { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
        true,
        ['verify'],
      );
      leafJwk = await globalThis.crypto.subtle.exportKey('jwk', key);
    } catch (cause) {
      throw tokenInvalid(`x5c[0] of kid ${kid} is not an RSA public key`, cause);
    }
    try {
      if (
        integerBytes(leafJwk.n!) !== integerBytes(n) ||
        integerBytes(leafJwk.e!) !== integerBytes(e)
      ) {
        throw tokenInvalid(
          `the modulus or exponent of x5c[0] differs from the JWK n/e of kid ${kid}`,
        );
      }
    } catch (error) {
      if (error instanceof LicensingError) throw error;
      throw tokenInvalid(`the JWK of kid ${kid} has malformed n or e`, error);
    }
    return { verify, validity: path.validity };
  }

  #checkRootExpiry(): void {
    const hook = this.#onRootExpiring;
    if (!hook) return;
    const now = this.#now();
    for (const root of this.#roots) {
      if (root.warned || root.notAfter - now > ROOT_WARNING_MS) continue;
      root.warned = true;
      try {
        hook({
          ...(root.keyId === undefined ? {} : { keyId: root.keyId }),
          notAfter: new Date(root.notAfter),
          daysLeft: Math.floor((root.notAfter - now) / DAY_MS),
        });
      } catch {
        // A throwing hook must not break verification.
      }
    }
  }
}

/**
 * Creates the {@link LeaseVerifier} every lease token from either service goes through. The
 * header must say `alg: RS256` and carry a `kid` (checked before any key is touched); the JWK of
 * that `kid` comes from `loadJwks(service)`, cached per service, refetched once when the `kid`
 * is unknown (concurrent refetches shared, the last good set kept when one fails); its `x5c`
 * chain must lead to one of `roots` (signatures, validity dates, CA flag and keyCertSign of each
 * issuer), and `x5c[0]` must carry the JWK's `n` and `e`; then the RS256 signature, `exp`/`iat`
 * (± `clockToleranceMs`) and, when `item` is given, the `<item>: true` claim are checked. Chain
 * results and imported keys are cached per (service, kid, JWK), so steady state costs one RSA
 * verify and no fetch.
 *
 * @param options `roots` (required), `loadJwks` (required), `now` (default `Date.now`),
 *   `clockToleranceMs` (default 60 000), `unknownKidCooldownMs` (default 30 000),
 *   `onRootExpiring` (called once per root within 90 days of expiry).
 * @throws LicensingError `INVALID_ARGUMENT` when a root is not a PEM certificate or none is given.
 * @example
 * const verifier = createLeaseVerifier({
 *   roots: [{ pem: EMBEDDED_ROOT_PEM, keyId: 'key-2025' }],
 *   loadJwks: (service, signal) => fetchJwks(service, signal),
 * });
 * const claims = await verifier.verify(token, { service: 'standby', item: 'ItemA' });
 */
export function createLeaseVerifier(options: LeaseVerifierOptions): LeaseVerifier {
  return new DefaultLeaseVerifier(options);
}
