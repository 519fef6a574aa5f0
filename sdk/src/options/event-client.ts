// The event client's options: their types and the one resolver that validates them (defaults in
// `DEFAULTS.events`). Downstream code only ever sees the resolved shape.
import type { JWK } from 'jose';
import { argument, option, type Validators } from '../internal/validate-option.js';
import { DEFAULTS } from './defaults.js';
import { resolveFetch, type TlsOptions } from './fetch-option.js';
import { resolveServiceUrl } from './service-url.js';

/** Largest `maxEventCount` the event service honours (docs/protocol.md "Limits"). */
export const MAX_PAGE_SIZE = 10_000;

/** RSA signature algorithms the event service accepts. */
export type EventSigningAlgorithm = 'RS256' | 'RS384' | 'RS512';

/** An RSA private key: a WebCrypto `CryptoKey`, a private JWK, or PKCS#8 PEM text. */
export type PrivateKeyInput = CryptoKey | JWK | string;

/** The key that signs written events as a compact JWS. */
export interface EventSigner {
  /** RSA private key whose public key the event service trusts for writes. */
  privateKey: PrivateKeyInput;
  /** Signature algorithm. Default `'RS256'`. */
  alg?: EventSigningAlgorithm;
  /** `kid` header value; the service then verifies with that key only. */
  kid?: string;
}

/** A ready Bearer token for reading feeds, e.g. from your identity provider. */
export interface EventReadTokenProvider {
  /**
   * Returns the JWT to send as `Authorization: Bearer <token>`. Called before every request,
   * with the feed name (`<source>` or `<objectType>/<objectId>`); cache in it as you see fit.
   */
  token: (context: { feed: string }) => string | Promise<string>;
}

/** A private key from which the SDK signs short-lived read JWTs itself. */
export interface EventReadKey {
  /** RSA private key whose public key the event service trusts for reads. */
  privateKey: PrivateKeyInput;
  /** Signature algorithm. Default `'RS256'`. */
  alg?: EventSigningAlgorithm;
  /** `kid` header value, when the service picks keys by id. */
  kid?: string;
  /** Lifetime of each token (`exp` - `iat`), in ms. Default 300 000 (5 minutes); at least 10 000. */
  ttlMs?: number;
  /**
   * `'feed'` (default): each token claims only the feed read (`{ "<feed>": true }`);
   * `'all'`: one token claims every feed (`{ "*": true }`).
   */
  scope?: 'feed' | 'all';
  /** Extra claims to put in every token (e.g. `iss`, `sub`). */
  claims?: Record<string, unknown>;
}

/** How the event client authorizes reads: a token provider or a signing key. */
export type EventReadAuth = EventReadTokenProvider | EventReadKey;

/** Options of `createEventClient`. */
export interface EventClientOptions {
  /** Base URL of the event service, e.g. `http://127.0.0.1:8787/events`. */
  eventUrl: string;
  /**
   * Read authorization: `{ token }` (a ready Bearer token provider) or `{ privateKey, alg?, kid?,
   * ttlMs?, scope? }` (the SDK signs short-lived read JWTs). Default: no `Authorization` header.
   */
  auth?: EventReadAuth;
  /** Default signer of `put`. */
  signer?: EventSigner;
  /** Events per read request (`maxEventCount`), 1 to 10 000. Default 1000. */
  pageSize?: number;
  /** Per-request timeout, in ms (long polls add their `maxWaitMs`). Default 30 000. */
  timeoutMs?: number;
  /**
   * The `fetch` to use, called as a plain function at call time and used as given (no `proxy` or
   * `tls` applies to it). Default `globalThis.fetch`, which on Node honours `proxy` and `tls`.
   */
  fetch?: typeof fetch;
  /**
   * The HTTP proxy to reach the event service through, on Node with the default `fetch`.
   * Default: the environment, read as curl reads it (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`,
   * either case). `false`: no proxy. A URL (`http://user:password@host:port`): that proxy.
   * Browsers ignore it.
   */
  proxy?: string | false;
  /**
   * Extra trust anchors for HTTPS to the event service on Node with the default `fetch`, added
   * to Node's own roots and `NODE_EXTRA_CA_CERTS`. Browsers ignore it.
   */
  tls?: TlsOptions;
  /** Clock for token lifetimes and `Retry-After` dates, ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** A signer after validation. */
export interface ResolvedEventSigner {
  privateKey: PrivateKeyInput;
  alg: EventSigningAlgorithm;
  kid: string | undefined;
}

/** Read authorization after validation. */
export type ResolvedReadAuth =
  | { kind: 'token'; token: EventReadTokenProvider['token'] }
  | {
      kind: 'key';
      privateKey: PrivateKeyInput;
      alg: EventSigningAlgorithm;
      kid: string | undefined;
      ttlMs: number;
      scope: 'feed' | 'all';
      claims: Record<string, unknown> | undefined;
    };

/** Options after defaults and validation: the only shape the event client's parts see. */
export interface ResolvedEventClientOptions {
  eventUrl: string;
  auth: ResolvedReadAuth | undefined;
  signer: ResolvedEventSigner | undefined;
  pageSize: number;
  timeoutMs: number;
  fetch: typeof fetch;
  now: () => number;
}

const KEYS = [
  'eventUrl',
  'auth',
  'signer',
  'pageSize',
  'timeoutMs',
  'fetch',
  'proxy',
  'tls',
  'now',
];
const ALGORITHMS: readonly EventSigningAlgorithm[] = ['RS256', 'RS384', 'RS512'];
/** Default lifetime of a read JWT the SDK signs, in ms. */
const READ_TOKEN_TTL_MS = 300_000;

function resolvePrivateKey(check: Validators, name: string, value: unknown): PrivateKeyInput {
  if (typeof value === 'string' ? value === '' : typeof value !== 'object' || value === null) {
    check.fail(name, `Expected \`${name}\` to be a PKCS#8 PEM, a private JWK or a CryptoKey`);
  }
  return value as PrivateKeyInput;
}

/**
 * Validates a signer: the client's default (`option`: InvalidOptionError) or one given to a
 * call (`argument`: LicensingError `INVALID_ARGUMENT`).
 */
export function resolveEventSigner(
  value: unknown,
  name: string,
  check: Validators = argument,
): ResolvedEventSigner {
  const signer = check.object(name, value);
  check.knownKeys(name, signer, ['privateKey', 'alg', 'kid']);
  return {
    privateKey: resolvePrivateKey(check, `${name}.privateKey`, signer.privateKey),
    alg: check.oneOf(`${name}.alg`, signer.alg, ALGORITHMS, 'RS256'),
    kid: check.string(`${name}.kid`, signer.kid),
  };
}

function resolveReadAuth(value: unknown): ResolvedReadAuth | undefined {
  if (value === undefined) return undefined;
  const auth = option.object('auth', value);
  if ('token' in auth) {
    option.knownKeys('auth', auth, ['token']);
    option.requireFn('auth.token', auth.token);
    return { kind: 'token', token: auth.token as EventReadTokenProvider['token'] };
  }
  if (!('privateKey' in auth)) {
    option.fail('auth', 'Expected `auth` to be { token } or { privateKey }');
  }
  option.knownKeys('auth', auth, ['privateKey', 'alg', 'kid', 'ttlMs', 'scope', 'claims']);
  return {
    kind: 'key',
    privateKey: resolvePrivateKey(option, 'auth.privateKey', auth.privateKey),
    alg: option.oneOf('auth.alg', auth.alg, ALGORITHMS, 'RS256'),
    kid: option.string('auth.kid', auth.kid),
    ttlMs: option.number('auth.ttlMs', auth.ttlMs, READ_TOKEN_TTL_MS, { min: 10_000 }),
    scope: option.oneOf('auth.scope', auth.scope, ['feed', 'all'], 'feed'),
    claims: auth.claims === undefined ? undefined : option.object('auth.claims', auth.claims),
  };
}

/**
 * Applies `DEFAULTS.events` and validates every option of `createEventClient` once. Throws an
 * `InvalidOptionError` (code `INVALID_ARGUMENT`) naming the offending option, unknown keys included.
 */
export function resolveEventClientOptions(options: EventClientOptions): ResolvedEventClientOptions {
  const o = option.object('options', options);
  option.knownKeys('', o, KEYS);
  const d = DEFAULTS.events;
  return {
    eventUrl: resolveServiceUrl('eventUrl', o.eventUrl),
    auth: resolveReadAuth(o.auth),
    signer: o.signer === undefined ? undefined : resolveEventSigner(o.signer, 'signer', option),
    pageSize: option.number('pageSize', o.pageSize, d.pageSize, {
      min: 1,
      max: MAX_PAGE_SIZE,
      integer: true,
    }),
    timeoutMs: option.number('timeoutMs', o.timeoutMs, d.timeoutMs, { min: 1 }),
    fetch: resolveFetch(o),
    now: option.fn('now', o.now, Date.now),
  };
}
