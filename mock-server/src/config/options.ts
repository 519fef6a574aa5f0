import { randomBytes } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { parsePublicKeys, type TrustedKey } from '../crypto/public-keys.js';
import { resolveSigningThreads } from '../crypto/signing-pool.js';
import { type MockServerLimits, resolveLimits } from './limits.js';

/** Options of {@link buildApp}; the command line maps onto these one to one. */
export interface MockServerOptions {
  /** Management API key of the standby. Default: generated once (kept in `dataDir` when set). */
  apiKey?: string;
  /** Folder for keys, state and events. Default: memory only. */
  dataDir?: string;
  /** Initial standby state on first start. Default `'dormant'`, as a standby starts. */
  state?: 'dormant' | 'active';
  /** PEM or JWKS texts of keys trusted for ID tokens. Default: the built-in issuer's key. */
  idpPublicKeys?: string[];
  /** `iss` of trusted ID tokens and of the built-in issuer. Default: `<publicUrl>/idp`. */
  issuer?: string;
  /**
   * The server's own base URL, e.g. `https://licensing.example.test`: lease tokens carry
   * `<publicUrl>/standby` or `<publicUrl>/main` as `iss` (never the request's `Host`), and the
   * start line prints these URLs. Default: the URL it listens on (`http://localhost` until then).
   */
  publicUrl?: string;
  /**
   * Origins allowed to read answers cross-origin (CORS), e.g. `['https://app.example.test']`.
   * Default: any origin.
   */
  corsOrigins?: string[];
  /**
   * Host names the admin API answers besides the loopback names (`127.0.0.1`, `localhost`,
   * `[::1]`) and the host of `publicUrl`, e.g. `['mock.ci.internal']` for a mock reached by that
   * name. Any other `Host` gets 403 on `/admin` (DNS rebinding). Default: none.
   */
  allowedHosts?: string[];
  /** Limits of the requests it takes. Default: {@link DEFAULT_LIMITS}. */
  limits?: Partial<MockServerLimits>;
  /** OAuth client id that ID tokens' `aud` must contain. Default `'mock-client'`. */
  clientId?: string;
  /** PEM texts of main deployment keys for ServiceKeyHash. Default: the mock main's key. */
  servicePublicKeys?: string[];
  /** PEM or JWKS texts of keys trusted to sign written events. Default: none (no check). */
  eventWriterKeys?: string[];
  /** PEM or JWKS texts of keys trusted to sign read JWTs. Default: the built-in issuer's key. */
  eventReaderKeys?: string[];
  /** Refuse legacy `application/json` event writes. Default false. */
  requireSignedEvents?: boolean;
  /** Catalogue of the mock main service. Default `['*']`: every item is licensed. */
  items?: string[];
  /**
   * Serve `/admin`: fault injection, reset, clock offset, main provisioning and the QA console.
   * Default false.
   */
  admin?: boolean;
  /**
   * With each main change (provisioning, revocation, block, unblock) also write an audit event
   * (`Created`, `Deleted`, `Updated` with `modifiedFields`, `oldFields`, `userId`). Default false.
   */
  mainAuditEvents?: boolean;
  /** Delay before an enable/disable takes effect, in ms (at most 300 000). Default 0. */
  propagationDelayMs?: number;
  /**
   * Header and scheme names, for a vendor's real names. Default: the protocol's neutral names
   * (`Service-ApiKey`, `Service-SigningKeyId`, `IdToken`, `ServiceKeyHash`).
   */
  wireNames?: Partial<WireNames>;
  /** Base clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /**
   * Worker threads that sign leases (standby and main `/authz/.jwt`, main checkout); `0` signs
   * on the event loop. Integer from 0 to 256. Default: one per available core, 0 on one core.
   */
  signingThreads?: number;
  /** Fastify logger setting. Default false. */
  logger?: boolean | Record<string, unknown>;
  /**
   * Serve HTTPS on the same port with this certificate and its private key, PEM texts (`cert`
   * may carry the intermediates after it); URLs are then `https://`. Default: plain HTTP. For
   * local runs, `standby-mock-server --make-dev-cert <dir>` makes a throwaway CA and a
   * certificate for localhost.
   */
  tls?: MockServerTls;
}

/** The certificate and key of an HTTPS mock server, PEM texts. */
export interface MockServerTls {
  /** The server certificate, PEM, optionally followed by its intermediates. */
  cert: string;
  /** Its private key, PEM (PKCS#8, PKCS#1 or SEC1). */
  key: string;
}

/**
 * Header and authorization scheme names on the wire; see
 * https://github.com/standby-licensing/standby-licensing/blob/main/docs/protocol.md#names
 */
export interface WireNames {
  /** Management API key header. Default `Service-ApiKey`. */
  apiKeyHeader: string;
  /** Signing key selection header on `/authz/.jwt`. Default `Service-SigningKeyId`. */
  signingKeyIdHeader: string;
  /** Authorization scheme of ID tokens. Default `IdToken`. */
  idTokenScheme: string;
  /** Authorization scheme of the service key hash. Default `ServiceKeyHash`. */
  serviceKeyHashScheme: string;
}

/** The spec's neutral names. */
export const DEFAULT_WIRE_NAMES: Readonly<WireNames> = {
  apiKeyHeader: 'Service-ApiKey',
  signingKeyIdHeader: 'Service-SigningKeyId',
  idTokenScheme: 'IdToken',
  serviceKeyHashScheme: 'ServiceKeyHash',
};

/** Options after defaults and parsing; what the services read from `app.config`. */
export interface ResolvedOptions {
  apiKey: string | undefined;
  dataDir: string | undefined;
  state: 'dormant' | 'active';
  idpPublicKeys: TrustedKey[] | undefined;
  /** Mutable: the server sets it to `<publicUrl>/idp` after listening when none was given. */
  issuer: string;
  issuerExplicit: boolean;
  /** Base URL without a trailing slash. Mutable: set to the listening URL when none was given. */
  publicUrl: string;
  publicUrlExplicit: boolean;
  /** Allowed CORS origins; undefined means any origin. */
  corsOrigins: ReadonlySet<string> | undefined;
  /** Host names the admin API answers besides loopback and the public URL's, lower-case. */
  allowedHosts: ReadonlySet<string>;
  limits: Readonly<MockServerLimits>;
  clientId: string;
  servicePublicKeys: TrustedKey[] | undefined;
  eventWriterKeys: TrustedKey[];
  eventReaderKeys: TrustedKey[] | undefined;
  requireSignedEvents: boolean;
  items: ReadonlySet<string>;
  admin: boolean;
  mainAuditEvents: boolean;
  propagationDelayMs: number;
  wireNames: Readonly<WireNames>;
  now: () => number;
  signingThreads: number;
  /** Serve HTTPS with these; undefined: plain HTTP. */
  tls: MockServerTls | undefined;
}

/**
 * Creates a random management API key: 48 hex digits (192 bits). Hex, not base64url, because a
 * key that starts with `-` (1 in 64 base64url keys) reads as an option on a command line such as
 * `embed-root --api-key <key>` and is refused there.
 */
export function generateApiKey(): string {
  return randomBytes(24).toString('hex');
}

const KNOWN = new Set([
  'apiKey',
  'dataDir',
  'state',
  'idpPublicKeys',
  'issuer',
  'publicUrl',
  'corsOrigins',
  'allowedHosts',
  'limits',
  'clientId',
  'servicePublicKeys',
  'eventWriterKeys',
  'eventReaderKeys',
  'requireSignedEvents',
  'items',
  'admin',
  'mainAuditEvents',
  'propagationDelayMs',
  'wireNames',
  'now',
  'signingThreads',
  'logger',
  'tls',
]);

function keys(texts: string[] | undefined, name: string): TrustedKey[] | undefined {
  return texts?.flatMap((text, i) => parsePublicKeys(text, `${name}[${i}]`));
}

/**
 * Checks a base URL (`http:` or `https:`, no credentials, query or fragment) and returns it
 * without a trailing slash. Throws a TypeError naming `name`.
 */
export function parseBaseUrl(text: string, name: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`${name} must be an absolute URL, got ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`${name} must be an http: or https: URL, got ${text}`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new TypeError(`${name} must not carry credentials, a query or a fragment, got ${text}`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Checks a CORS origin (`<scheme>://<host>[:<port>]`, or `null`) and returns it normalised. */
export function parseCorsOrigin(text: string): string {
  if (text === 'null') return text;
  let origin: string;
  try {
    origin = new URL(text).origin;
  } catch {
    throw new TypeError(`corsOrigins: ${text} is not an origin (scheme://host[:port])`);
  }
  if (origin === 'null' || origin !== text.toLowerCase().replace(/\/$/, '')) {
    throw new TypeError(`corsOrigins: ${text} is not an origin (scheme://host[:port])`);
  }
  return origin;
}

/**
 * Checks a host name for `allowedHosts` (a DNS name, an IPv4 address or a bracketed IPv6
 * address, no port) and returns it in lower case.
 */
export function parseAllowedHost(text: string): string {
  if (
    typeof text !== 'string' ||
    !/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])$/.test(
      text,
    )
  ) {
    throw new TypeError(
      `allowedHosts: ${String(text)} is not a host name (a name or address, no scheme or port)`,
    );
  }
  return text.toLowerCase();
}

/**
 * Checks `tls` (PEM texts of a certificate and the key that belongs to it, as Node's TLS reads
 * them) and returns it; throws a TypeError saying what to fix.
 */
export function resolveTls(value: unknown): MockServerTls | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError('tls must be { cert, key }: PEM texts of a certificate and its key');
  }
  for (const key of Object.keys(value)) {
    if (key !== 'cert' && key !== 'key') throw new TypeError(`Unknown tls entry: ${key}`);
  }
  const { cert, key } = value as Partial<MockServerTls>;
  if (typeof cert !== 'string' || !cert.includes('-----BEGIN CERTIFICATE-----')) {
    throw new TypeError('tls.cert must be a PEM certificate (-----BEGIN CERTIFICATE-----)');
  }
  if (typeof key !== 'string' || !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) {
    throw new TypeError('tls.key must be a PEM private key (-----BEGIN PRIVATE KEY-----)');
  }
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new TypeError(
      `tls: this certificate and key cannot serve HTTPS (${(err as Error).message}); check that the key is the certificate's`,
    );
  }
  return { cert, key };
}

/** Applies defaults and validates; throws a TypeError naming the bad option. */
export function resolveOptions(options: MockServerOptions = {}): ResolvedOptions {
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new TypeError(`Unknown option: ${key}`);
  }
  const state = options.state ?? 'dormant';
  if (state !== 'dormant' && state !== 'active') {
    throw new TypeError(`state must be 'dormant' or 'active', got ${String(state)}`);
  }
  const delay = options.propagationDelayMs ?? 0;
  if (!Number.isInteger(delay) || delay < 0 || delay > 300_000) {
    throw new TypeError('propagationDelayMs must be an integer from 0 to 300000');
  }
  const signingThreads = resolveSigningThreads(options.signingThreads, 'signingThreads');
  const wireNames = { ...DEFAULT_WIRE_NAMES, ...options.wireNames };
  for (const [name, value] of Object.entries(wireNames)) {
    if (!(name in DEFAULT_WIRE_NAMES)) throw new TypeError(`Unknown wireNames entry: ${name}`);
    if (typeof value !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(value)) {
      throw new TypeError(`wireNames.${name} must be an HTTP token, got ${String(value)}`);
    }
  }
  const publicUrl =
    options.publicUrl === undefined
      ? 'http://localhost'
      : parseBaseUrl(options.publicUrl, 'publicUrl');
  if (options.corsOrigins !== undefined && !Array.isArray(options.corsOrigins)) {
    throw new TypeError('corsOrigins must be an array of origins');
  }
  if (options.allowedHosts !== undefined && !Array.isArray(options.allowedHosts)) {
    throw new TypeError('allowedHosts must be an array of host names');
  }
  if (
    options.apiKey !== undefined &&
    (typeof options.apiKey !== 'string' || options.apiKey === '')
  ) {
    throw new TypeError('apiKey must be a non-empty string');
  }
  return {
    apiKey: options.apiKey,
    dataDir: options.dataDir,
    state,
    idpPublicKeys: keys(options.idpPublicKeys, 'idpPublicKeys'),
    issuer: options.issuer ?? `${publicUrl}/idp`,
    issuerExplicit: options.issuer !== undefined,
    publicUrl,
    publicUrlExplicit: options.publicUrl !== undefined,
    corsOrigins:
      options.corsOrigins === undefined || options.corsOrigins.includes('*')
        ? undefined
        : new Set(options.corsOrigins.map(parseCorsOrigin)),
    allowedHosts: new Set((options.allowedHosts ?? []).map(parseAllowedHost)),
    limits: resolveLimits(options.limits),
    clientId: options.clientId ?? 'mock-client',
    servicePublicKeys: keys(options.servicePublicKeys, 'servicePublicKeys'),
    eventWriterKeys: keys(options.eventWriterKeys, 'eventWriterKeys') ?? [],
    eventReaderKeys: keys(options.eventReaderKeys, 'eventReaderKeys'),
    requireSignedEvents: options.requireSignedEvents ?? false,
    items: new Set(options.items ?? ['*']),
    admin: options.admin ?? false,
    mainAuditEvents: options.mainAuditEvents ?? false,
    propagationDelayMs: delay,
    wireNames,
    now: options.now ?? Date.now,
    signingThreads,
    tls: resolveTls(options.tls),
  };
}
