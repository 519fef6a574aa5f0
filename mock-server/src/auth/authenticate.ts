import type { KeyObject } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TrustedKey } from '../crypto/public-keys.js';
import { ApiError } from '../errors.js';
import { computeServiceKeyHash } from './service-key-hash.js';
import { createIdTokenVerifier, type IdTokenClaims } from './verify-id-token.js';

/** Authorization schemes the services accept. */
export type AuthScheme = 'IdToken' | 'ServiceKeyHash' | 'Bearer';

/** Who made an authenticated request. */
export interface Caller {
  /** The ID token's `sub`, or `service` for ServiceKeyHash callers. */
  sub: string;
  scheme: AuthScheme;
  /** The ID token's claims (IdToken and Bearer only). */
  claims?: IdTokenClaims;
  /** The ServiceKeyHash presented, lower-case hex (ServiceKeyHash only). */
  keyHash?: string;
}

/** Options of {@link createAuthenticator}. */
export interface AuthenticatorOptions {
  /** Realm named in `WWW-Authenticate`, e.g. `standby`. */
  realm: string;
  /** Schemes accepted, in the order `WWW-Authenticate` names them. */
  schemes: readonly AuthScheme[];
  /** Seconds an ID token stays acceptable after `exp`. */
  graceSeconds: number;
}

/** Authenticates a request's `Authorization` header, or rejects with a 401 ApiError. */
export type Authenticator = (request: FastifyRequest) => Promise<Caller>;

/**
 * Creates the `Authorization` check of one service: IdToken (and Bearer where allowed) ID tokens
 * against `config.idpPublicKeys` (default: the built-in issuer's key), ServiceKeyHash against the
 * hashes of `config.servicePublicKeys` (default: the mock main's key). Failures are 401 with
 * `unauthorized` (no header) or `invalid_token`, and `WWW-Authenticate` naming the schemes.
 *
 * @example
 * const authenticate = createAuthenticator(app, { realm: 'standby',
 *   schemes: ['IdToken', 'ServiceKeyHash'], graceSeconds: 86_400 });
 * const { sub } = await authenticate(request);
 */
export function createAuthenticator(
  app: FastifyInstance,
  options: AuthenticatorOptions,
): Authenticator {
  const { config, keyring } = app;
  // The built-in issuer's and main's keys may be made after the server starts: read on first use.
  let trusted: readonly TrustedKey[] | undefined = config.idpPublicKeys;
  const trustedKeys = async () => {
    if (trusted) return trusted;
    const issuer = await keyring.get('issuer');
    trusted = [{ kid: issuer.kid, key: issuer.publicKey }];
    return trusted;
  };
  const verifyIdToken = createIdTokenVerifier({
    keys: () => trusted ?? trustedKeys(),
    issuer: () => config.issuer,
    clientId: config.clientId,
    now: () => app.clock.now(),
    graceSeconds: options.graceSeconds,
  });
  const hashesOf = (keys: readonly KeyObject[]) => new Set(keys.map(computeServiceKeyHash));
  let hashes = config.servicePublicKeys && hashesOf(config.servicePublicKeys.map((k) => k.key));
  const serviceKeyHashes = async () => {
    hashes ??= hashesOf([(await keyring.get('main')).publicKey]);
    return hashes;
  };
  const accepted = new Set(options.schemes);
  // The wire names may be a vendor's own (config.wireNames); schemes are case-insensitive.
  const wireName: Record<AuthScheme, string> = {
    IdToken: config.wireNames.idTokenScheme,
    ServiceKeyHash: config.wireNames.serviceKeyHashScheme,
    Bearer: 'Bearer',
  };
  const schemeNames = new Map<string, AuthScheme>(
    (Object.keys(wireName) as AuthScheme[]).map((scheme) => [
      wireName[scheme].toLowerCase(),
      scheme,
    ]),
  );
  const challenge = {
    'www-authenticate': options.schemes
      .map((s) => `${wireName[s]} realm="${options.realm}"`)
      .join(', '),
  };
  const fail = (error: string, description: string) =>
    new ApiError(401, error, description, challenge);

  return async (request) => {
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      throw fail('unauthorized', 'The Authorization header is missing');
    }
    const space = header.indexOf(' ');
    const scheme = space > 0 ? schemeNames.get(header.slice(0, space).toLowerCase()) : undefined;
    const credentials = space > 0 ? header.slice(space + 1).trim() : '';
    if (!scheme || !accepted.has(scheme) || credentials === '') {
      const names = options.schemes.map((s) => wireName[s]).join(' or ');
      throw fail('invalid_token', `Expected ${names} credentials`);
    }
    if (scheme === 'ServiceKeyHash') {
      const keyHash = credentials.toLowerCase();
      if (!(hashes ?? (await serviceKeyHashes())).has(keyHash)) {
        throw fail('invalid_token', `The ${wireName.ServiceKeyHash} does not match a trusted key`);
      }
      return { sub: 'service', scheme, keyHash };
    }
    try {
      const claims = await verifyIdToken(credentials);
      return { sub: claims.sub, scheme, claims };
    } catch (err) {
      if (err instanceof ApiError) throw fail(err.error, err.message);
      throw err;
    }
  };
}
