import { createCredentials } from '../auth/credentials.js';
import type { IdTokenSource } from '../auth/id-token-source.js';
import { createEventHub } from '../client-hooks.js';
import { LicensingError } from '../errors.js';
import { createStrategyA } from '../failover/strategy-a.js';
import { createStrategyB } from '../failover/strategy-b.js';
import { createLeaseKeeper, type LeaseKeeper } from '../lease/lease-keeper.js';
import { createLeaseState } from '../lease/lease-state.js';
import { createMemoryLeaseStore } from '../lease/memory-lease-store.js';
import { createServiceKeys } from '../lease/service-keys.js';
import { createTrustedClock } from '../lease/trusted-clock.js';
import { parseTrustedRoots, watchRootExpiry } from '../lease/trusted-roots.js';
import {
  type LicensingClientOptions,
  type ResolvedLicensingClientOptions,
  resolveLicensingClientOptions,
} from '../options/licensing-client.js';
import { createLicensingTransport } from '../transport/licensing-transport.js';
import type { LicensingService } from '../types.js';
import { checkout } from './checkout.js';
import { checkoutProducts } from './checkout-products.js';
import type { ClientContext } from './client-context.js';
import type { LicensingClient } from './licensing-client.js';
import { release } from './release.js';
import { renew } from './renew.js';
import { restore } from './restore.js';
import { verifyToken } from './verify-token.js';

/**
 * Creates a licensing client: checkout, renewal and release of leases on the main licensing
 * service with failover to the standby service (Strategy A or B), every lease verified against
 * the root certificates embedded in the app.
 *
 * @param options Validated once; an unknown or malformed option throws an `InvalidOptionError`
 *   (a `TypeError`) naming it. See {@link LicensingClientOptions} for every option with its unit
 *   and default.
 * @returns A {@link LicensingClient}. Call `close()` when done.
 * @throws InvalidOptionError for a bad option.
 *
 * @example
 * ```ts
 * import { createLicensingClient } from '@standby-licensing/sdk';
 * import { ROOT_PEM } from './embedded-root.js'; // the standby root, compiled into the app
 *
 * const client = createLicensingClient({
 *   mainUrl: 'http://127.0.0.1:8787/main',
 *   standbyUrl: 'http://127.0.0.1:8787/standby',
 *   auth: { idToken: () => oidc.getIdToken() },
 *   failover: { strategy: 'B', mainAttempts: 2 },
 *   trust: { rootCertificates: [{ pem: ROOT_PEM, keyId: 'standby-key-1' }] },
 *   hardwareId: 'workstation-42',
 *   version: '3.1.0',
 *   on: { failover: (e) => console.warn('licensing on standby', e.cause) },
 * });
 * const { leases, denied } = await client.checkout(['ItemA']);
 * const keeper = client.keepAlive(leases); // renews at `refreshAt`, through failover
 * // ... later
 * await client.close(); // releases the kept leases
 * ```
 */
export function createLicensingClient(options: LicensingClientOptions): LicensingClient {
  return assembleLicensingClient(resolveLicensingClientOptions(options));
}

/** Parts a test may replace (internal). */
export interface ClientOverrides {
  idTokens?: IdTokenSource;
}

/** The command that embeds a service's current root, for chain refusals. */
function embedHint(service: LicensingService, options: ResolvedLicensingClientOptions): string {
  const command =
    service === 'standby'
      ? `npx standby-licensing embed-root --standby-url ${options.standbyUrl} --api-key <management API key> --out <your roots module>`
      : `npx standby-licensing embed-root --jwks-url ${options.mainUrl}/.well-known/jwks.json --out <your roots module>`;
  return `Embed the ${service} service's current root and ship it with the app: ${command}`;
}

/**
 * Wires a client from resolved options: event hub → clock → key sources and lease state →
 * credentials → transport → strategy → the operations. Nothing here hands a closure down:
 * every part receives plain values, and a checkout flows client → failover → transport → lease
 * and back up by return values.
 */
export function assembleLicensingClient(
  options: ResolvedLicensingClientOptions,
  overrides: ClientOverrides = {},
): LicensingClient {
  const events = createEventHub(options.on, options.logger);
  const { clockToleranceMs: toleranceMs, unknownKidCooldownMs: cooldownMs } = options.trust;
  const clock = createTrustedClock({ now: options.now, toleranceMs });
  const anchors = parseTrustedRoots(options.trust.rootCertificates);
  const watchRoots = watchRootExpiry(anchors, clock.now, (info) =>
    events.emit('rootExpiring', info),
  );
  watchRoots();
  const keysOf = (service: LicensingService) =>
    createServiceKeys({ service, anchors, cooldownMs, embedHint: embedHint(service, options) });
  const keys = { main: keysOf('main'), standby: keysOf('standby') };
  const state = createLeaseState({
    store: options.leaseStore ?? createMemoryLeaseStore(),
    clock,
    keys,
    toleranceMs,
    logger: options.logger,
  });
  const credentials = createCredentials({
    auth: options.auth,
    names: options.names,
    // ID-token expiry and the standby's grace are judged on the services' time too.
    now: clock.now,
    events,
    logger: options.logger,
    ...(overrides.idTokens ? { idTokens: overrides.idTokens } : {}),
  });
  const transport = createLicensingTransport({
    mainUrl: options.mainUrl,
    standbyUrl: options.standbyUrl,
    fetch: options.fetch,
    now: options.now,
    attemptTimeoutMs: options.failover.attemptTimeoutMs,
    signingKeyIdHeader: options.names.signingKeyIdHeader,
    signingKeyId: options.signingKeyId,
    credentials,
  });
  const strategyDeps = {
    failover: options.failover,
    random: options.random,
    now: options.now,
    events,
    transport,
  };
  const strategy =
    options.failover.strategy === 'B'
      ? createStrategyB(strategyDeps)
      : createStrategyA(strategyDeps);
  const context: ClientContext = {
    strategy,
    transport,
    keys,
    clock,
    state,
    events,
    echoes: {
      hardwareId: options.hardwareId,
      hardwareName: options.hardwareName,
      version: options.version,
    },
    standbyUrl: options.standbyUrl,
    hardwareId: options.hardwareId,
    toleranceMs,
    jwksFetches: new Map(),
  };

  const keepers = new Set<LeaseKeeper>();
  let closed = false;
  const open = () => {
    if (closed)
      throw new LicensingError('CLIENT_CLOSED', 'The licensing client is closed: create a new one');
    watchRoots();
    return context;
  };

  return {
    on: events.on,
    get activeService() {
      return strategy.activeService;
    },
    checkout: async (items, callOptions) => checkout(open(), items, callOptions),
    renew: async (lease, callOptions) => renew(open(), lease, callOptions),
    release: async (leases, callOptions) => release(open(), leases, callOptions),
    verify: async (token, verifyOptions) => verifyToken(open(), token, verifyOptions),
    restore: async (callOptions) => restore(open(), callOptions),
    async checkoutProducts(products, callOptions) {
      open();
      if (options.auth.kind !== 'idToken') {
        throw new LicensingError(
          'INVALID_ARGUMENT',
          "checkoutProducts() needs auth.idToken: the main service's checkout action takes ID tokens only",
        );
      }
      return checkoutProducts(context, products, callOptions);
    },
    keepAlive(leases, keeperOptions = {}) {
      open();
      const keeper = createLeaseKeeper(
        {
          renew: (lease, o) => renew(context, lease, o),
          checkout: (items, o) => checkout(context, items, o),
          release: (list, o) => release(context, list, o),
          events,
          now: options.now,
          random: options.random,
        },
        keeperOptions,
      );
      keepers.add(keeper);
      for (const lease of leases) keeper.add(lease);
      return keeper;
    },
    async close(callOptions = {}) {
      if (closed) return;
      const all = [...keepers];
      keepers.clear();
      await Promise.allSettled(all.map((keeper) => keeper.close(callOptions)));
      closed = true;
      strategy.close();
      events.clear();
    },
  };
}
