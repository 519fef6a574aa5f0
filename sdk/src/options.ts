import type { IdTokenStore } from './auth/id-token-source.js';
import type { LicensingEventHooks, LicensingLogger } from './client/licensing-events.js';
import type { TrustedRoot } from './lease/lease-verifier.js';

/** Authorization with the app's OIDC ID token (main: `IdToken`; standby: same, with grace). */
export interface IdTokenAuthOptions {
  /** Returns a current ID token; called only when the cached one is missing or expired. */
  idToken: () => string | Promise<string>;
  /** Where the last good token is kept across restarts. Default: memory only. */
  store?: IdTokenStore;
  /** How long after `exp` the standby still accepts the token, in ms. Default 86 400 000 (24 h). */
  graceMs?: number;
  /** How long a call waits for `idToken()` before using the fallback, in ms. Default 10 000. */
  providerTimeoutMs?: number;
  /** After `idToken()` fails, how long to skip asking it again, in ms. Default 30 000. */
  providerRetryMs?: number;
}

/** Authorization with `ServiceKeyHash` (a service deployment, no user): the hash itself. */
export interface ServiceKeyHashAuthOptions {
  /** Lowercase hex SHA-256 over the main deployment's public key PEM. */
  serviceKeyHash: string;
}

/** Authorization with `ServiceKeyHash`, computed from the main deployment's public key. */
export interface ServicePublicKeyAuthOptions {
  /** The main deployment's public key as SPKI PEM; the SDK computes the hash. */
  servicePublicKeyPem: string;
}

/** How the client authorizes its calls. */
export type LicensingAuthOptions =
  | IdTokenAuthOptions
  | ServiceKeyHashAuthOptions
  | ServicePublicKeyAuthOptions;

/** Failover behaviour. Every duration is in milliseconds. */
export interface FailoverOptions {
  /**
   * `'A'`: every call tries main `mainAttempts` times, then the standby. `'B'`: after a confirmed
   * main failure, check the standby's `GET /enabled`; if enabled, stay on the standby (no main
   * attempts) until it reports disabled or answers 403, probing main meanwhile. Default `'A'`.
   */
  strategy?: 'A' | 'B';
  /** Attempts on the main service per call before it counts as failing. Integer >= 1. Default 2. */
  mainAttempts?: number;
  /** Timeout of one HTTP attempt (connect, headers and body), in ms. Default 5 000. */
  attemptTimeoutMs?: number;
  /** Backoff before the 2nd main attempt, doubled each retry, with jitter, in ms. Default 250. */
  backoffBaseMs?: number;
  /** Upper bound of one backoff wait, in ms. Default 5 000. */
  backoffMaxMs?: number;
  /** Upper bound applied to a server's `Retry-After`, in ms. Default 10 000. */
  retryAfterMaxMs?: number;
  /** Strategy B: interval between main-service probes while on the standby, in ms. Default 30 000. */
  probeIntervalMs?: number;
}

/** Root certificates embedded in the app that every lease must chain to. */
export interface TrustOptions {
  /**
   * At least one root. A root with `keyId` makes the client send `Service-SigningKeyId` (the
   * first root carrying one) so the standby signs with the key of that root.
   */
  rootCertificates: TrustedRoot[];
  /** Tolerance for `exp`/`iat` checks, in ms. Default: the verifier's (a few seconds). */
  clockToleranceMs?: number;
}

/** Header and scheme names, for a vendor whose real names differ from the spec's neutral ones. */
export interface WireNameOptions {
  /** Header selecting the standby signing key. Default `'Service-SigningKeyId'`. */
  signingKeyIdHeader?: string;
  /** Authorization scheme of ID tokens. Default `'IdToken'`. */
  idTokenScheme?: string;
  /** Authorization scheme of the service key hash. Default `'ServiceKeyHash'`. */
  serviceKeyHashScheme?: string;
}

/** Options of `createLicensingClient`. */
export interface LicensingClientOptions {
  /** Base URL of the main licensing service (`/authz/.jwt` sits under it). */
  mainUrl: string;
  /** Base URL of the standby licensing service. */
  standbyUrl: string;
  auth: LicensingAuthOptions;
  failover?: FailoverOptions;
  trust: TrustOptions;
  /** Hardware id echoed in leases (`hw`). Default: none. */
  hardwareId?: string;
  /** Hardware label sent as `hw=<id>;name=<label>`. Default: none. */
  hardwareName?: string;
  /** App version echoed in leases (`version`). Default: none. */
  version?: string;
  names?: WireNameOptions;
  /** fetch implementation. Default: the global `fetch`, looked up at call time. */
  fetch?: typeof fetch;
  /** Clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Random source in [0, 1) for jitter. Default `Math.random`. */
  random?: () => number;
  /** Event listeners, e.g. `{ failover: (e) => log(e) }`. Default: none. */
  on?: LicensingEventHooks;
  /** Receives listener errors and other problems the SDK swallows. Default: none. */
  logger?: LicensingLogger;
}

/** Authorization after resolution. */
export type ResolvedAuth =
  | {
      kind: 'idToken';
      provider: () => string | Promise<string>;
      store?: IdTokenStore;
      graceMs?: number;
      providerTimeoutMs?: number;
      providerRetryMs?: number;
    }
  | { kind: 'serviceKeyHash'; hash: string }
  | { kind: 'servicePublicKey'; pem: string };

/** Options after defaults and validation: the only shape downstream code sees. */
export interface ResolvedLicensingClientOptions {
  mainUrl: string;
  standbyUrl: string;
  auth: ResolvedAuth;
  failover: Required<FailoverOptions>;
  trust: { rootCertificates: TrustedRoot[]; clockToleranceMs: number | undefined };
  /** Key id sent in the signing-key header to the standby, from the first root carrying one. */
  signingKeyId: string | undefined;
  hardwareId: string | undefined;
  hardwareName: string | undefined;
  version: string | undefined;
  names: Required<WireNameOptions>;
  fetch: typeof fetch;
  now: () => number;
  random: () => number;
  on: LicensingEventHooks;
  logger: LicensingLogger | undefined;
}

/** Defaults of every optional setting (durations in ms). */
export const DEFAULTS = Object.freeze({
  failover: Object.freeze({
    strategy: 'A' as 'A' | 'B',
    mainAttempts: 2,
    attemptTimeoutMs: 5_000,
    backoffBaseMs: 250,
    backoffMaxMs: 5_000,
    retryAfterMaxMs: 10_000,
    probeIntervalMs: 30_000,
  }),
  names: Object.freeze({
    signingKeyIdHeader: 'Service-SigningKeyId',
    idTokenScheme: 'IdToken',
    serviceKeyHashScheme: 'ServiceKeyHash',
  }),
});

const TOP_KEYS = [
  'mainUrl',
  'standbyUrl',
  'auth',
  'failover',
  'trust',
  'hardwareId',
  'hardwareName',
  'version',
  'names',
  'fetch',
  'now',
  'random',
  'on',
  'logger',
];
const EVENT_NAMES = [
  'failover',
  'failback',
  'attemptFailed',
  'leaseRenewed',
  'renewFailed',
  'idTokenGrace',
  'rootExpiring',
];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rejectUnknownKeys(
  name: string,
  value: Record<string, unknown>,
  allowed: readonly string[],
) {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new TypeError(`Unknown option \`${name ? `${name}.` : ''}${key}\``);
    }
  }
}

function requireObject(name: string, value: unknown): Record<string, unknown> {
  if (!isObject(value)) throw new TypeError(`Expected \`${name}\` to be an object`);
  return value;
}

function validateUrl(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`Expected \`${name}\` to be a URL string`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`Expected \`${name}\` to be an absolute URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`Expected \`${name}\` to be an http(s) URL`);
  }
  if (url.search || url.hash) throw new TypeError(`Expected \`${name}\` without query or fragment`);
  return url.href.replace(/\/+$/, '');
}

function validateString(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`Expected \`${name}\` to be a non-empty string`);
  }
  return value;
}

function validateFunction<T>(name: string, value: unknown, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw new TypeError(`Expected \`${name}\` to be a function`);
  return value as T;
}

function requireFunction(name: string, value: unknown): void {
  if (typeof value !== 'function') throw new TypeError(`Expected \`${name}\` to be a function`);
}

function validateNumber(
  name: string,
  value: unknown,
  fallback: number,
  { min = 0, integer = false }: { min?: number; integer?: boolean } = {},
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new TypeError(`Expected \`${name}\` to be a finite number >= ${min}`);
  }
  if (integer && !Number.isInteger(value))
    throw new TypeError(`Expected \`${name}\` to be an integer`);
  return value;
}

function resolveAuth(value: unknown): ResolvedAuth {
  const auth = requireObject('auth', value);
  if ('idToken' in auth) {
    rejectUnknownKeys('auth', auth, [
      'idToken',
      'store',
      'graceMs',
      'providerTimeoutMs',
      'providerRetryMs',
    ]);
    requireFunction('auth.idToken', auth.idToken);
    const provider = auth.idToken as () => string | Promise<string>;
    const resolved: ResolvedAuth = { kind: 'idToken', provider };
    if (auth.store !== undefined) {
      const store = requireObject('auth.store', auth.store);
      for (const method of ['load', 'save', 'clear']) {
        requireFunction(`auth.store.${method}`, store[method]);
      }
      resolved.store = store as unknown as IdTokenStore;
    }
    if (auth.graceMs !== undefined)
      resolved.graceMs = validateNumber('auth.graceMs', auth.graceMs, 0);
    for (const name of ['providerTimeoutMs', 'providerRetryMs'] as const) {
      if (auth[name] !== undefined) resolved[name] = validateNumber(`auth.${name}`, auth[name], 0);
    }
    return resolved;
  }
  if ('serviceKeyHash' in auth) {
    rejectUnknownKeys('auth', auth, ['serviceKeyHash']);
    const hash = auth.serviceKeyHash;
    if (typeof hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hash)) {
      throw new TypeError('Expected `auth.serviceKeyHash` to be a hex SHA-256 (64 characters)');
    }
    return { kind: 'serviceKeyHash', hash: hash.toLowerCase() };
  }
  if ('servicePublicKeyPem' in auth) {
    rejectUnknownKeys('auth', auth, ['servicePublicKeyPem']);
    const pem = auth.servicePublicKeyPem;
    if (typeof pem !== 'string' || !pem.includes('-----BEGIN PUBLIC KEY-----')) {
      throw new TypeError('Expected `auth.servicePublicKeyPem` to be an SPKI PEM public key');
    }
    return { kind: 'servicePublicKey', pem };
  }
  throw new TypeError(
    'Expected `auth` to have `idToken`, `serviceKeyHash` or `servicePublicKeyPem`',
  );
}

function resolveFailover(value: unknown): Required<FailoverOptions> {
  const d = DEFAULTS.failover;
  if (value === undefined) return { ...d };
  const f = requireObject('failover', value);
  rejectUnknownKeys('failover', f, Object.keys(d));
  const strategy = f.strategy ?? d.strategy;
  if (strategy !== 'A' && strategy !== 'B') {
    throw new TypeError("Expected `failover.strategy` to be 'A' or 'B'");
  }
  const backoffBaseMs = validateNumber('failover.backoffBaseMs', f.backoffBaseMs, d.backoffBaseMs);
  const backoffMaxMs = validateNumber('failover.backoffMaxMs', f.backoffMaxMs, d.backoffMaxMs);
  if (backoffMaxMs < backoffBaseMs) {
    throw new TypeError('Expected `failover.backoffMaxMs` to be >= `failover.backoffBaseMs`');
  }
  return {
    strategy,
    mainAttempts: validateNumber('failover.mainAttempts', f.mainAttempts, d.mainAttempts, {
      min: 1,
      integer: true,
    }),
    attemptTimeoutMs: validateNumber(
      'failover.attemptTimeoutMs',
      f.attemptTimeoutMs,
      d.attemptTimeoutMs,
      {
        min: 1,
      },
    ),
    backoffBaseMs,
    backoffMaxMs,
    retryAfterMaxMs: validateNumber(
      'failover.retryAfterMaxMs',
      f.retryAfterMaxMs,
      d.retryAfterMaxMs,
    ),
    probeIntervalMs: validateNumber(
      'failover.probeIntervalMs',
      f.probeIntervalMs,
      d.probeIntervalMs,
      {
        min: 1,
      },
    ),
  };
}

function resolveTrust(value: unknown): ResolvedLicensingClientOptions['trust'] {
  const trust = requireObject('trust', value);
  rejectUnknownKeys('trust', trust, ['rootCertificates', 'clockToleranceMs']);
  const roots = trust.rootCertificates;
  if (!Array.isArray(roots) || roots.length === 0) {
    throw new TypeError('Expected `trust.rootCertificates` to be a non-empty array');
  }
  const rootCertificates = roots.map((root, i): TrustedRoot => {
    const name = `trust.rootCertificates[${i}]`;
    const r = requireObject(name, root);
    rejectUnknownKeys(name, r, ['pem', 'keyId']);
    if (typeof r.pem !== 'string' || !r.pem.includes('-----BEGIN CERTIFICATE-----')) {
      throw new TypeError(`Expected \`${name}.pem\` to be a PEM certificate`);
    }
    const keyId = validateString(`${name}.keyId`, r.keyId);
    return keyId === undefined ? { pem: r.pem } : { pem: r.pem, keyId };
  });
  const clockToleranceMs =
    trust.clockToleranceMs === undefined
      ? undefined
      : validateNumber('trust.clockToleranceMs', trust.clockToleranceMs, 0);
  return { rootCertificates, clockToleranceMs };
}

function resolveNames(value: unknown): Required<WireNameOptions> {
  if (value === undefined) return { ...DEFAULTS.names };
  const names = requireObject('names', value);
  rejectUnknownKeys('names', names, Object.keys(DEFAULTS.names));
  const pick = (key: keyof WireNameOptions) => {
    const given = validateString(`names.${key}`, names[key]);
    if (given !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(given)) {
      throw new TypeError(`Expected \`names.${key}\` to be an HTTP token`);
    }
    return given ?? DEFAULTS.names[key];
  };
  return {
    signingKeyIdHeader: pick('signingKeyIdHeader'),
    idTokenScheme: pick('idTokenScheme'),
    serviceKeyHashScheme: pick('serviceKeyHashScheme'),
  };
}

function resolveHooks(value: unknown): LicensingEventHooks {
  if (value === undefined) return {};
  const hooks = requireObject('on', value);
  rejectUnknownKeys('on', hooks, EVENT_NAMES);
  for (const [name, listener] of Object.entries(hooks)) requireFunction(`on.${name}`, listener);
  return hooks as LicensingEventHooks;
}

/**
 * Applies {@link DEFAULTS} and validates every option once. Throws a `TypeError` naming the
 * offending option (unknown keys included), so a typo fails at start-up, not mid-outage.
 */
export function resolveLicensingClientOptions(
  options: LicensingClientOptions,
): ResolvedLicensingClientOptions {
  const o = requireObject('options', options);
  rejectUnknownKeys('', o, TOP_KEYS);
  const trust = resolveTrust(o.trust);
  const logger = o.logger;
  if (logger !== undefined) requireFunction('logger.warn', requireObject('logger', logger).warn);
  return {
    mainUrl: validateUrl('mainUrl', o.mainUrl),
    standbyUrl: validateUrl('standbyUrl', o.standbyUrl),
    auth: resolveAuth(o.auth),
    failover: resolveFailover(o.failover),
    trust,
    signingKeyId: trust.rootCertificates.find((root) => root.keyId !== undefined)?.keyId,
    hardwareId: validateString('hardwareId', o.hardwareId),
    hardwareName: validateString('hardwareName', o.hardwareName),
    version: validateString('version', o.version),
    names: resolveNames(o.names),
    // Looked up at call time so a fetch patched later (msw, instrumentation) is used.
    fetch: validateFunction<typeof fetch>('fetch', o.fetch, (input, init) =>
      globalThis.fetch(input, init),
    ),
    now: validateFunction('now', o.now, Date.now),
    random: validateFunction('random', o.random, Math.random),
    on: resolveHooks(o.on),
    logger: logger as LicensingLogger | undefined,
  };
}
