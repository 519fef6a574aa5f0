import { createCredentials } from '../auth/credentials.js';
import type { IdTokenSource } from '../auth/id-token-source.js';
import { createEventHub } from '../client-hooks.js';
import { LicensingError } from '../errors.js';
import { createStrategyA } from '../failover/strategy-a.js';
import { createStrategyB } from '../failover/strategy-b.js';
import { createLeaseState } from '../lease/lease-state.js';
import { createMemoryLeaseStore } from '../lease/memory-lease-store.js';
import { createTrustedClock } from '../lease/trusted-clock.js';
import { parseTrustedRoots, watchRootExpiry } from '../lease/trusted-roots.js';
import { resolveCloseOptions } from '../options/app-integration.js';
import {
  type LicensingClientOptions,
  type ResolvedLicensingClientOptions,
  resolveLicensingClientOptions,
} from '../options/licensing-client.js';
import { createLicensingTelemetry } from '../telemetry/licensing-telemetry.js';
import { createLicensingTransport } from '../transport/licensing-transport.js';
import type { Lease } from '../types.js';
import { checkoutProducts } from './checkout-products.js';
import type { ClientContext } from './client-context.js';
import { createClientKeys } from './client-keys.js';
import { createClientStatus } from './client-status.js';
import { createHeldOperations, traceHeldOperations } from './held-operations.js';
import { createLeaseKeeper, type LeaseKeeper } from './lease-keeper.js';
import type { LicensingClient } from './licensing-client.js';
import { observeStore } from './observed-store.js';
import { preflight } from './preflight.js';
import { restore } from './restore.js';
import { createUseMark, MARK_INTERVAL_MS } from './use-mark.js';
import { verifyToken } from './verify-token.js';

/**
 * Creates a licensing client: checkout, renewal and release of leases on the main licensing
 * service with failover to the standby service (Strategy A or B), every lease verified against
 * the root certificates embedded in the app.
 *
 * @param options Validated once; an unknown or malformed option throws an `InvalidOptionError`
 *   (code `INVALID_ARGUMENT`) naming it. See {@link LicensingClientOptions} for every option with its unit
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
 *   on: { failover: (e) => console.warn('licensing on standby:', (e.cause as Error).message) },
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

/**
 * Wires a client from resolved options: clock → telemetry → event hub → credentials → transport
 * → each service's key source (loading its JWK set through the transport) and the lease state →
 * strategy → the operations. A checkout flows client → failover → transport → lease and back up
 * by return values; the key sources' loader is the one function handed down (as jose's remote
 * JWK set takes its fetch).
 */
export function assembleLicensingClient(
  options: ResolvedLicensingClientOptions,
  overrides: ClientOverrides = {},
): LicensingClient {
  const { clockToleranceMs: toleranceMs, unknownKidCooldownMs: cooldownMs } = options.trust;
  // A store write saves where the app was plus a minute, the longest it goes without one while it
  // holds leases: a restart (killed, the clock set back) resumes no earlier than where it was.
  const clock = createTrustedClock({
    now: options.now,
    toleranceMs,
    restartChargeMs: MARK_INTERVAL_MS,
  });
  // Where the runtime has node:diagnostics_channel (docs/observability.md): the hub's events
  // and the operations below are published there; elsewhere undefined, and nothing is.
  const telemetry = createLicensingTelemetry({
    secrets: [options.hardwareId, options.hardwareName],
    clock,
  });
  const events = createEventHub(options.on, options.logger, telemetry?.publish);
  const anchors = parseTrustedRoots(options.trust.rootCertificates);
  const watchRoots = watchRootExpiry(anchors, clock.now, (info) =>
    events.emit('rootExpiring', info),
  );
  watchRoots();
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
    signingKeyIds: options.signingKeyIds,
    credentials,
  });
  const keys = createClientKeys({
    transport,
    clock,
    anchors,
    mainUrl: options.mainUrl,
    standbyUrl: options.standbyUrl,
    cooldownMs,
    attemptTimeoutMs: options.failover.attemptTimeoutMs,
    events,
  });
  // Observed so that preflight can tell whether a write reached the store.
  const store = observeStore(options.leaseStore ?? createMemoryLeaseStore());
  const state = createLeaseState({
    store,
    clock,
    keys,
    toleranceMs,
    logger: options.logger,
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
  };

  // What the client holds (leases, service, last error), fed by every operation below; the time
  // mark follows its use.
  const useMark = createUseMark({ clock, state });
  const status = createClientStatus({
    clock,
    strategy,
    events,
    logger: options.logger,
    useMark,
    store: state,
  });
  const operations = createHeldOperations(context, status);
  // What the app's calls and the keepers run, each through telemetry where there is one.
  const tracked = telemetry ? traceHeldOperations(operations, telemetry) : operations;
  const trace = <T>(name: 'restore' | 'verify', run: () => Promise<T>) =>
    telemetry ? telemetry.run(name, {}, run) : run();
  const held = { held: (result: { leases: Lease[] }) => result.leases };

  const keepers = new Set<LeaseKeeper>();
  let closed = false;
  let closing: Promise<void> | undefined;
  const open = () => {
    if (closed || closing) {
      throw new LicensingError(
        'CLIENT_CLOSED',
        'The licensing client is closed. Create a new client for further calls.',
      );
    }
    watchRoots();
    return context;
  };

  /** Releases `leases` in at most `timeoutMs`, best effort (close goes on either way). */
  const releaseWithin = async (
    leases: Lease[],
    closeOptions: ReturnType<typeof resolveCloseOptions>,
  ) => {
    if (leases.length === 0) return;
    const controller = new AbortController();
    const signal = closeOptions.signal
      ? AbortSignal.any([closeOptions.signal, controller.signal])
      : controller.signal;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(
          new LicensingError(
            'SERVICE_UNAVAILABLE',
            `The leases were not released within ${closeOptions.timeoutMs} ms. Check that the licensing services are reachable, or raise timeoutMs.`,
          ),
        );
        resolve();
      }, closeOptions.timeoutMs);
    });
    const released = tracked
      .release(leases, { signal, keepalive: closeOptions.keepalive })
      .catch(() => undefined);
    await Promise.race([released, deadline]);
    clearTimeout(timer);
  };

  return {
    on: events.on,
    get activeService() {
      return strategy.activeService;
    },
    checkout: async (items, callOptions) => {
      open();
      return tracked.checkout(items, callOptions);
    },
    renew: async (lease, callOptions) => {
      open();
      return tracked.renew(lease, callOptions);
    },
    release: async (leases, callOptions) => {
      open();
      return tracked.release(leases, callOptions);
    },
    verify: async (token, verifyOptions) =>
      trace('verify', async () => verifyToken(open(), token, verifyOptions)),
    restore: async (callOptions) =>
      trace('restore', async () =>
        status.track(restore(open(), callOptions), { ...held, exchange: false }),
      ),
    async checkoutProducts(products, callOptions) {
      open();
      if (options.auth.kind !== 'idToken') {
        throw new LicensingError(
          'INVALID_ARGUMENT',
          "checkoutProducts() needs ID-token auth: the main service's checkout action takes ID tokens only. Create the client with auth.idToken to use it.",
        );
      }
      return status.track(checkoutProducts(context, products, callOptions), {
        held: (results) => results.flatMap((result) => (result.lease ? [result.lease] : [])),
      });
    },
    keepAlive(leases, keeperOptions = {}) {
      open();
      const keeper = createLeaseKeeper(
        { operations: tracked, events, clock, random: options.random },
        keeperOptions,
      );
      keepers.add(keeper);
      for (const lease of leases) keeper.add(lease);
      return keeper;
    },
    has: (item) => status.has(item),
    status: () => status.snapshot(),
    subscribe: (listener) => status.subscribe(listener),
    preflight: async (callOptions) =>
      preflight(
        open(),
        {
          mainUrl: options.mainUrl,
          standbyUrl: options.standbyUrl,
          idTokenAuth: options.auth.kind === 'idToken',
          credentials,
          store,
        },
        callOptions,
      ),
    async close(closeOptions) {
      const resolved = resolveCloseOptions(closeOptions);
      if (closed) return;
      closing ??= (async () => {
        const all = [...keepers];
        keepers.clear();
        if (resolved.release) {
          // Every held lease goes in one release; the keepers stop without releasing theirs.
          const leases = new Map(status.held().map((lease) => [lease.leaseId, lease]));
          for (const keeper of all) {
            for (const lease of keeper.leases) {
              keeper.remove(lease.item);
              leases.set(lease.leaseId, lease);
            }
          }
          await Promise.allSettled(all.map((keeper) => keeper.close()));
          await releaseWithin([...leases.values()], resolved);
        } else {
          const signal = resolved.signal;
          await Promise.allSettled(all.map((keeper) => keeper.close(signal ? { signal } : {})));
        }
        // The time mark follows use to the end: a held lease valid now raises it, and it is saved.
        status.held();
        await useMark.flush();
        closed = true;
        strategy.close();
        events.clear();
        status.close();
      })();
      return closing;
    },
  };
}
