// The licensing client's options: their types and the one resolver that validates them (every
// default in `DEFAULTS`). Downstream code only ever sees the resolved shape.
import type { LicensingEventHooks } from '../client-hooks.js';
import { loneSurrogateAt } from '../internal/lone-surrogate.js';
import { option } from '../internal/validate-option.js';
import type { IdTokenStore, LeaseStore, LicensingLogger, TrustedRoot } from '../types.js';
import { DEFAULTS, MAX_GRACE_MS } from './defaults.js';
import { resolveFetch, type TlsOptions } from './fetch-option.js';
import { HARDWARE_TEXT_ADVICE, hardwareTextProblem } from './hardware-id.js';
import { resolveIdTokenStore } from './id-token-source.js';
import { resolveServiceUrl } from './service-url.js';

/** Authorization with the app's OIDC ID token (main: `IdToken`; standby: same, with grace). */
export interface IdTokenAuthOptions {
  /** Returns a current ID token; called only when the cached one is missing or expired. */
  idToken: () => string | Promise<string>;
  /** Where the last good token is kept across restarts. Default: memory only. */
  store?: IdTokenStore;
  /**
   * How long after `exp` the standby still accepts the token, in ms; at most its 24 h grace.
   * Default 86 400 000 (24 h). See
   * https://github.com/standby-licensing/standby-licensing/blob/main/docs/protocol.md#authentication
   */
  graceMs?: number;
  /** How long a call waits for `idToken()` before using the fallback, in ms. Default 10 000. */
  providerTimeoutMs?: number;
  /**
   * After `idToken()` fails, how long to skip asking it again, in ms, unless main refuses the
   * last good token meanwhile (a 401: a service answers, so it is asked at once). Default 30 000.
   */
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
  /**
   * Strategy B: wait before the first main-service probe while on the standby, in ms; doubled
   * after each probe that finds main still down, up to `probeMaxIntervalMs`. Default 30 000.
   */
  probeIntervalMs?: number;
  /** Strategy B: upper bound of the wait between probes, in ms. Default 300 000 (5 minutes). */
  probeMaxIntervalMs?: number;
  /**
   * Strategy B: each probe waits `probeIntervalMs` × (1 + random × this), so apps that failed over
   * together do not probe, and fail back, together. From 0 (no jitter) to 1. Default 0.5.
   */
  probeJitterRatio?: number;
  /**
   * Strategy A: a circuit breaker on main, so an outage costs it a bounded number of attempts
   * per app; `false` turns it off (every call then tries main `mainAttempts` times). Default
   * `{ failureThreshold: 2, halfOpenAfterMs: 30 000, halfOpenMaxMs: 300 000 }`.
   */
  breaker?: BreakerOptions | false;
}

/** Strategy A's circuit breaker on the main service. Durations in ms. */
export interface BreakerOptions {
  /** Consecutive calls on which every main attempt failed before calls skip main. Integer >= 1. Default 2. */
  failureThreshold?: number;
  /**
   * Wait before one call makes a single trial attempt on main, doubled after each failed trial,
   * jittered ±50 %. Default 30 000.
   */
  halfOpenAfterMs?: number;
  /** Upper bound of that wait (before jitter). Default 300 000. */
  halfOpenMaxMs?: number;
}

/** Root certificates embedded in the app that every lease must chain to. */
export interface TrustOptions {
  /**
   * At least one root (`{ pem, keyId?, service? }`, as `embed-root` writes them). The client sends
   * the standby `Service-SigningKeyId` with the `keyId` of the first root not for `'main'`, so the
   * standby signs with the key of that root; should the standby not know it
   * (`unknown_signing_key`), the next such root's `keyId` is sent.
   */
  rootCertificates: TrustedRoot[];
  /**
   * Allowed clock difference for `exp`, `iat`, `nbf` and certificate validity checks, in ms.
   * Default 60 000.
   */
  clockToleranceMs?: number;
  /**
   * After a fetch of a service's JWK set brought no trusted key for a `kid` (it lacked it, or its
   * key failed the chain check), no other fetch for an unknown `kid` of that service happens for
   * this long, whatever the `kid`: tokens with such a `kid` are refused meanwhile, in ms. Default
   * 30 000.
   */
  unknownKidCooldownMs?: number;
}

/**
 * Header and scheme names, for a vendor whose real names differ from the protocol's neutral ones
 * (https://github.com/standby-licensing/standby-licensing/blob/main/docs/protocol.md#names).
 */
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
  /**
   * Hardware id echoed in leases (`hw`), which binds every lease to this device: at most 256
   * characters, no `;` and no control character. Default: none (leases bound to nothing).
   */
  hardwareId?: string;
  /** Hardware label sent as `hw=<id>;name=<label>`; the same rules as `hardwareId`. Default: none. */
  hardwareName?: string;
  /** App version echoed in leases (`version`). Default: none. */
  version?: string;
  names?: WireNameOptions;
  /**
   * Where leases, both services' JWK sets and the latest trusted time are kept, so that
   * `client.restore()` gets valid leases back after a restart with no network. Default
   * `createMemoryLeaseStore()` (this process only); `createFileLeaseStore(path)` from
   * `@standby-licensing/sdk/node`, or `createWebStorageLeaseStore()` in browsers.
   */
  leaseStore?: LeaseStore;
  /**
   * fetch implementation, used as given (no `proxy` or `tls` applies to it); in Electron's main
   * process `net.fetch` follows the system's proxy settings and certificate store. Default: the
   * global `fetch`, looked up at call time, which on Node honours `proxy` and `tls`.
   */
  fetch?: typeof fetch;
  /**
   * The HTTP proxy to reach both services through, on Node (Electron's main process included)
   * with the default `fetch`. Default: the environment, read as curl reads it (`HTTPS_PROXY` for
   * https URLs, `HTTP_PROXY` for http ones, either case, minus the hosts `NO_PROXY` lists).
   * `false`: no proxy, whatever the environment says. A URL (`http://user:password@host:port`,
   * credentials percent-encoded, sent as Basic authentication): that proxy for every request,
   * `NO_PROXY` ignored. https targets go through a CONNECT tunnel, http ones are forwarded.
   * Browsers ignore it (the browser owns proxies).
   */
  proxy?: string | false;
  /**
   * Extra trust anchors for HTTPS to both services on Node with the default `fetch`, added to
   * Node's own roots and `NODE_EXTRA_CA_CERTS` (e.g. the CA of a network that inspects TLS).
   * Default: Node's own only. Browsers ignore it (the browser owns certificates).
   */
  tls?: TlsOptions;
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
      graceMs: number;
      providerTimeoutMs: number;
      providerRetryMs: number;
    }
  | { kind: 'serviceKeyHash'; hash: string }
  | { kind: 'servicePublicKey'; pem: string };

/** Failover options after defaults and validation. */
export type ResolvedFailoverOptions = Required<Omit<FailoverOptions, 'breaker'>> & {
  breaker: Required<BreakerOptions> | false;
};

/** Options after defaults and validation: the only shape downstream code sees. */
export interface ResolvedLicensingClientOptions {
  mainUrl: string;
  standbyUrl: string;
  auth: ResolvedAuth;
  failover: ResolvedFailoverOptions;
  trust: {
    rootCertificates: TrustedRoot[];
    clockToleranceMs: number;
    unknownKidCooldownMs: number;
  };
  /**
   * Key ids the signing-key header may name to the standby, in order: the `keyId`s of the roots
   * not for main.
   */
  signingKeyIds: string[];
  hardwareId: string | undefined;
  hardwareName: string | undefined;
  version: string | undefined;
  names: Required<WireNameOptions>;
  /** Undefined: the client makes a memory store. */
  leaseStore: LeaseStore | undefined;
  fetch: typeof fetch;
  now: () => number;
  random: () => number;
  on: LicensingEventHooks;
  logger: LicensingLogger | undefined;
}

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
  'leaseStore',
  'fetch',
  'proxy',
  'tls',
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
  'circuitOpen',
  'circuitClose',
  'keysFetched',
];
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function resolveAuth(value: unknown): ResolvedAuth {
  const auth = option.object('auth', value);
  if ('idToken' in auth) {
    option.knownKeys('auth', auth, [
      'idToken',
      'store',
      'graceMs',
      'providerTimeoutMs',
      'providerRetryMs',
    ]);
    option.requireFn('auth.idToken', auth.idToken);
    const d = DEFAULTS.auth;
    const resolved: ResolvedAuth = {
      kind: 'idToken',
      provider: auth.idToken as () => string | Promise<string>,
      graceMs: option.number('auth.graceMs', auth.graceMs, d.graceMs, { max: MAX_GRACE_MS }),
      providerTimeoutMs: option.number(
        'auth.providerTimeoutMs',
        auth.providerTimeoutMs,
        d.providerTimeoutMs,
      ),
      providerRetryMs: option.number(
        'auth.providerRetryMs',
        auth.providerRetryMs,
        d.providerRetryMs,
      ),
    };
    if (auth.store !== undefined) resolved.store = resolveIdTokenStore('auth.store', auth.store);
    return resolved;
  }
  if ('serviceKeyHash' in auth) {
    option.knownKeys('auth', auth, ['serviceKeyHash']);
    const hash = auth.serviceKeyHash;
    if (typeof hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hash)) {
      option.fail(
        'auth.serviceKeyHash',
        'Expected `auth.serviceKeyHash` to be a hex SHA-256 (64 characters)',
      );
    }
    return { kind: 'serviceKeyHash', hash: (hash as string).toLowerCase() };
  }
  if ('servicePublicKeyPem' in auth) {
    option.knownKeys('auth', auth, ['servicePublicKeyPem']);
    const pem = auth.servicePublicKeyPem;
    if (typeof pem !== 'string' || !pem.includes('-----BEGIN PUBLIC KEY-----')) {
      option.fail(
        'auth.servicePublicKeyPem',
        'Expected `auth.servicePublicKeyPem` to be an SPKI PEM public key',
      );
    }
    return { kind: 'servicePublicKey', pem: pem as string };
  }
  return option.fail(
    'auth',
    'Expected `auth` to have `idToken`, `serviceKeyHash` or `servicePublicKeyPem`',
  );
}

function resolveBreaker(value: unknown): ResolvedFailoverOptions['breaker'] {
  const d = DEFAULTS.failover.breaker;
  if (value === false) return false;
  const b = value === undefined ? {} : option.object('failover.breaker', value);
  option.knownKeys('failover.breaker', b, Object.keys(d));
  const halfOpenAfterMs = option.number(
    'failover.breaker.halfOpenAfterMs',
    b.halfOpenAfterMs,
    d.halfOpenAfterMs,
    { min: 1 },
  );
  return {
    failureThreshold: option.number(
      'failover.breaker.failureThreshold',
      b.failureThreshold,
      d.failureThreshold,
      { min: 1, integer: true },
    ),
    halfOpenAfterMs,
    halfOpenMaxMs: option.number(
      'failover.breaker.halfOpenMaxMs',
      b.halfOpenMaxMs,
      Math.max(d.halfOpenMaxMs, halfOpenAfterMs),
      { min: halfOpenAfterMs },
    ),
  };
}

function resolveFailover(value: unknown): ResolvedFailoverOptions {
  const d = DEFAULTS.failover;
  const f = value === undefined ? {} : option.object('failover', value);
  option.knownKeys('failover', f, Object.keys(d));
  const backoffBaseMs = option.number('failover.backoffBaseMs', f.backoffBaseMs, d.backoffBaseMs);
  const probeIntervalMs = option.number(
    'failover.probeIntervalMs',
    f.probeIntervalMs,
    d.probeIntervalMs,
    { min: 1 },
  );
  const backoffMaxMs = option.number('failover.backoffMaxMs', f.backoffMaxMs, d.backoffMaxMs);
  if (backoffMaxMs < backoffBaseMs) {
    option.fail(
      'failover.backoffMaxMs',
      'Expected `failover.backoffMaxMs` to be >= `failover.backoffBaseMs`',
    );
  }
  return {
    strategy: option.oneOf('failover.strategy', f.strategy, ['A', 'B'], d.strategy),
    mainAttempts: option.number('failover.mainAttempts', f.mainAttempts, d.mainAttempts, {
      min: 1,
      integer: true,
    }),
    attemptTimeoutMs: option.number(
      'failover.attemptTimeoutMs',
      f.attemptTimeoutMs,
      d.attemptTimeoutMs,
      { min: 1 },
    ),
    backoffBaseMs,
    backoffMaxMs,
    retryAfterMaxMs: option.number(
      'failover.retryAfterMaxMs',
      f.retryAfterMaxMs,
      d.retryAfterMaxMs,
    ),
    probeIntervalMs,
    probeMaxIntervalMs: option.number(
      'failover.probeMaxIntervalMs',
      f.probeMaxIntervalMs,
      Math.max(d.probeMaxIntervalMs, probeIntervalMs),
      { min: probeIntervalMs },
    ),
    probeJitterRatio: option.number(
      'failover.probeJitterRatio',
      f.probeJitterRatio,
      d.probeJitterRatio,
      { max: 1 },
    ),
    breaker: resolveBreaker(f.breaker),
  };
}

function resolveTrust(value: unknown): ResolvedLicensingClientOptions['trust'] {
  if (value === undefined) {
    option.fail(
      'trust',
      'Missing `trust`: the root certificates every lease must chain to, `{ rootCertificates: [rootCertificate] }`, compiled into the app. Embed them with `npx standby-licensing embed-root` (see its --help).',
    );
  }
  const trust = option.object('trust', value);
  option.knownKeys('trust', trust, [
    'rootCertificates',
    'clockToleranceMs',
    'unknownKidCooldownMs',
  ]);
  const roots = trust.rootCertificates;
  if (!Array.isArray(roots) || roots.length === 0) {
    option.fail(
      'trust.rootCertificates',
      'Expected `trust.rootCertificates` to be a non-empty array of the roots every lease must chain to (`{ pem, keyId?, service? }`). Embed them with `npx standby-licensing embed-root` (see its --help).',
    );
  }
  const rootCertificates = (roots as unknown[]).map((root, i): TrustedRoot => {
    const name = `trust.rootCertificates[${i}]`;
    const r = option.object(name, root);
    option.knownKeys(name, r, ['pem', 'keyId', 'service']);
    if (typeof r.pem !== 'string' || !r.pem.includes('-----BEGIN CERTIFICATE-----')) {
      option.fail(`${name}.pem`, `Expected \`${name}.pem\` to be a PEM certificate`);
    }
    const keyId = option.string(`${name}.keyId`, r.keyId);
    const service =
      r.service === undefined
        ? undefined
        : option.oneOf(`${name}.service`, r.service, ['main', 'standby'], 'standby');
    return {
      pem: r.pem as string,
      ...(keyId === undefined ? {} : { keyId }),
      ...(service === undefined ? {} : { service }),
    };
  });
  const d = DEFAULTS.trust;
  return {
    rootCertificates,
    clockToleranceMs: option.number(
      'trust.clockToleranceMs',
      trust.clockToleranceMs,
      d.clockToleranceMs,
    ),
    unknownKidCooldownMs: option.number(
      'trust.unknownKidCooldownMs',
      trust.unknownKidCooldownMs,
      d.unknownKidCooldownMs,
    ),
  };
}

/** The key ids the standby may be asked to sign with: of the roots not for main, in order. */
function signingKeyIdsOf(roots: readonly TrustedRoot[]): string[] {
  const ids = roots.flatMap((root) =>
    root.keyId !== undefined && root.service !== 'main' ? [root.keyId] : [],
  );
  return [...new Set(ids)];
}

function resolveNames(value: unknown): Required<WireNameOptions> {
  const names = value === undefined ? {} : option.object('names', value);
  option.knownKeys('names', names, Object.keys(DEFAULTS.names));
  const pick = (key: keyof WireNameOptions) => {
    const given = option.string(`names.${key}`, names[key]);
    if (given !== undefined && !HTTP_TOKEN.test(given)) {
      option.fail(`names.${key}`, `Expected \`names.${key}\` to be an HTTP token`);
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
  const hooks = option.object('on', value);
  option.knownKeys('on', hooks, EVENT_NAMES);
  for (const [name, listener] of Object.entries(hooks)) option.requireFn(`on.${name}`, listener);
  return hooks as LicensingEventHooks;
}

/** A non-empty string a URL can carry (no lone UTF-16 surrogate), or undefined. */
function resolveWireText(name: string, value: unknown): string | undefined {
  const text = option.string(name, value);
  if (text !== undefined && loneSurrogateAt(text) >= 0) {
    option.fail(
      name,
      `\`${name}\` contains a lone UTF-16 surrogate at position ${loneSurrogateAt(text) + 1}, which no URL can carry. Fix the text (a surrogate pair cut in two).`,
    );
  }
  return text;
}

/** A hardware id or label the wire carries whole (see `hardware-id.ts`), or undefined. */
function resolveHardwareText(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const problem = hardwareTextProblem(value);
  if (problem !== undefined) {
    option.fail(name, `\`${name}\` ${problem}. ${HARDWARE_TEXT_ADVICE}`);
  }
  return value as string;
}

function resolveLeaseStore(value: unknown): LeaseStore | undefined {
  if (value === undefined) return undefined;
  const store = option.object('leaseStore', value);
  for (const method of ['load', 'save', 'clear']) {
    option.requireFn(`leaseStore.${method}`, store[method]);
  }
  return store as unknown as LeaseStore;
}

/**
 * Applies {@link DEFAULTS} and validates every option once. Throws an `InvalidOptionError` (code
 * `INVALID_ARGUMENT`) naming the offending option (unknown keys included), so a typo fails at
 * start-up, not mid-outage.
 */
export function resolveLicensingClientOptions(
  options: LicensingClientOptions,
): ResolvedLicensingClientOptions {
  const o = option.object('options', options);
  option.knownKeys('', o, TOP_KEYS);
  const trust = resolveTrust(o.trust);
  const logger = o.logger;
  if (logger !== undefined) option.requireFn('logger.warn', option.object('logger', logger).warn);
  const mainUrl = resolveServiceUrl('mainUrl', o.mainUrl);
  const standbyUrl = resolveServiceUrl('standbyUrl', o.standbyUrl);
  if (standbyUrl === mainUrl) {
    // Failover to the same URL would only retry main: a copy-paste slip, never a setup.
    option.fail(
      'standbyUrl',
      `Expected \`standbyUrl\` to differ from \`mainUrl\` (both are ${mainUrl}): give the standby service's own base URL`,
    );
  }
  return {
    mainUrl,
    standbyUrl,
    auth: resolveAuth(o.auth),
    failover: resolveFailover(o.failover),
    trust,
    signingKeyIds: signingKeyIdsOf(trust.rootCertificates),
    hardwareId: resolveHardwareText('hardwareId', o.hardwareId),
    hardwareName: resolveHardwareText('hardwareName', o.hardwareName),
    version: resolveWireText('version', o.version),
    names: resolveNames(o.names),
    leaseStore: resolveLeaseStore(o.leaseStore),
    fetch: resolveFetch(o),
    now: option.fn('now', o.now, Date.now),
    random: option.fn('random', o.random, Math.random),
    on: resolveHooks(o.on),
    logger: logger as LicensingLogger | undefined,
  };
}
