import { decodeJwt } from 'jose';
import type { IdTokenSource } from '../auth/id-token-source.js';
import { isLicensingError, LicensingError } from '../errors.js';
import {
  classifyFailure,
  type ExpectedBody,
  type LicensingService,
} from '../failover/classify-failure.js';
import { FailedAttempt } from '../failover/failed-attempt.js';
import type {
  AttemptOperation,
  FailoverDeps,
  FailoverStrategy,
} from '../failover/failover-strategy.js';
import { tryMainAttempts } from '../failover/main-attempts.js';
import { createStrategyA } from '../failover/strategy-a.js';
import { createStrategyB } from '../failover/strategy-b.js';
import {
  type AuthzItem,
  buildCheckoutQuery,
  buildReleaseQuery,
  buildRenewQuery,
  splitTokens,
} from '../internal/authz-wire.js';
import { sendHttpAttempt } from '../internal/http-attempt.js';
import { type DeniedItem, type Lease, readDenial, toLease } from '../lease/lease.js';
import {
  createLeaseKeeper,
  type LeaseKeeper,
  type LeaseKeeperOptions,
} from '../lease/lease-keeper.js';
import type { JwkSet, LeaseVerifier } from '../lease/lease-verifier.js';
import type { ResolvedLicensingClientOptions } from '../options.js';
import {
  createEventHub,
  type LicensingEventHub,
  type LicensingEvents,
} from './licensing-events.js';

/** Options every async method accepts. */
export interface CallOptions {
  /** Aborts the call, including backoff waits and the in-flight attempt. */
  signal?: AbortSignal;
}

/** One item of a checkout, pinned to a license id (`ItemA=;licenseId=L1`). */
export interface CheckoutItem {
  item: string;
  licenseId?: string;
}

/** Result of `client.checkout`: granted leases and items the main service denied. */
export interface CheckoutResult {
  /** One verified lease per granted item, in request order. */
  leases: Lease[];
  /** Items refused in an otherwise good answer (e.g. `noLicenseFound`): not an outage. */
  denied: DeniedItem[];
}

/** Options of `client.verify`. */
export interface VerifyOptions extends CallOptions {
  /** The item the token must grant. Default: the token's only `<item>: true` claim. */
  item?: string;
  /** Whose keys to verify with. Default: `'standby'` when `iss` is the standby's URL, else `'main'`. */
  service?: LicensingService;
}

/** One product of the main service's checkout action. */
export interface ProductCheckout {
  productName: string;
  /** Integer >= 1. */
  qty: number;
  qtyDimension: 'SEATS' | 'USE_COUNT' | 'USE_TIME';
}

/** Per-product answer of the main service's checkout action. */
export interface ProductCheckoutResult {
  productName: string;
  granted: boolean;
  /** The license token of a granted product, verified. */
  jwt?: string;
  /** Verified claims of `jwt`. */
  claims?: Record<string, unknown>;
  errorCode?: string;
  errorDescription?: string;
}

/** A licensing client (see `createLicensingClient`). */
export interface LicensingClient extends LicensingEvents {
  /**
   * Checks out a lease per item (main first; failover per the strategy). Denied items are
   * returned in `denied`, never thrown.
   */
  checkout(
    items: readonly (string | CheckoutItem)[],
    options?: CallOptions,
  ): Promise<CheckoutResult>;
  /** Renews a lease (same `leaseId`); a standby lease is checked out anew when main serves. */
  renew(lease: Lease, options?: CallOptions): Promise<Lease>;
  /** Releases leases (best effort by spec; one request for all of them). */
  release(leases: Lease | readonly Lease[], options?: CallOptions): Promise<void>;
  /** Re-verifies a stored token (e.g. read from disk) and returns it as a lease. */
  verify(token: string, options?: VerifyOptions): Promise<Lease>;
  /**
   * The main service's product checkout (`POST /licensing/actions/checkout`). Main only: the
   * standby has no such action and counts no seats, so there is nothing to fail over to.
   */
  checkoutProducts(
    products: readonly ProductCheckout[],
    options?: CallOptions,
  ): Promise<ProductCheckoutResult[]>;
  /** Keeps leases alive until `close()`; see {@link LeaseKeeper}. */
  keepAlive(leases: readonly Lease[], options?: LeaseKeeperOptions): LeaseKeeper;
  /** The service the next call goes to first (`'main'` or `'standby'`). */
  readonly activeService: LicensingService;
  /** Stops probes, closes keepers (releasing their leases) and refuses further calls. */
  close(options?: CallOptions): Promise<void>;
}

/** Collaborators the client builds from its options, injectable for tests. */
export interface LicensingClientParts {
  /** Present with `auth.idToken`. */
  idTokens?: IdTokenSource;
  /** Resolves the ServiceKeyHash (with `auth.serviceKeyHash` / `servicePublicKeyPem`). */
  serviceKeyHash?: () => Promise<string>;
  /** Builds the verifier once the client can load JWKS. */
  createVerifier(
    loadJwks: (service: LicensingService, signal?: AbortSignal) => Promise<JwkSet>,
    events: LicensingEventHub,
  ): LeaseVerifier;
}

interface RequestSpec {
  path: string;
  query?: string;
  method?: 'GET' | 'POST';
  body?: string;
  contentType?: string;
  expect: ExpectedBody;
  /** Send the signing-key header (standby `/authz/.jwt`). */
  signingKey?: boolean;
}

const RESERVED = new Set([
  'hw',
  'process',
  'version',
  'doConsume',
  'consumptionMode',
  'consumeDuration',
  'consumeCount',
  'leaseId',
  'licenseId',
  'release',
  'ownerOrganizationId',
  'ownerUserId',
  'entitlementId',
]);

function invalid(message: string): LicensingError {
  return new LicensingError('INVALID_ARGUMENT', message);
}

function normalizeItems(items: readonly (string | CheckoutItem)[]): AuthzItem[] {
  if (!Array.isArray(items) || items.length === 0) throw invalid('items must be a non-empty array');
  const seen = new Set<string>();
  return items.map((entry, i) => {
    const { item, licenseId } =
      typeof entry === 'string'
        ? { item: entry, licenseId: undefined }
        : (entry ?? ({} as CheckoutItem));
    if (typeof item !== 'string' || item === '') throw invalid(`items[${i}] must name an item`);
    if (RESERVED.has(item)) throw invalid(`items[${i}] '${item}' is a reserved parameter name`);
    if (seen.has(item)) throw invalid(`items[${i}] '${item}' is requested twice`);
    if (licenseId !== undefined && (typeof licenseId !== 'string' || licenseId === '')) {
      throw invalid(`items[${i}].licenseId must be a non-empty string`);
    }
    seen.add(item);
    return { item, licenseId };
  });
}

function isLease(value: unknown): value is Lease {
  const lease = value as Lease | undefined;
  return (
    typeof lease === 'object' &&
    lease !== null &&
    typeof lease.item === 'string' &&
    typeof lease.leaseId === 'string' &&
    lease.leaseId !== '' &&
    (lease.servedBy === 'main' || lease.servedBy === 'standby')
  );
}

function malformed(service: LicensingService, url: string, why: string): FailedAttempt {
  return new FailedAttempt({
    ok: false,
    outage: true,
    reason: 'malformed-body',
    error: new LicensingError('SERVICE_UNAVAILABLE', `${service}: ${why} (${url})`),
  });
}

/**
 * Builds a client from resolved options and its collaborators. Internal: `createLicensingClient`
 * calls it with the real ID-token source and verifier; unit tests pass fakes.
 */
export function buildLicensingClient(
  options: ResolvedLicensingClientOptions,
  parts: LicensingClientParts,
): LicensingClient {
  const events = createEventHub(options.on, options.logger);
  const keepers = new Set<LeaseKeeper>();
  let closed = false;

  const baseUrl = (service: LicensingService) =>
    service === 'main' ? options.mainUrl : options.standbyUrl;

  async function authorization(
    service: LicensingService,
    signal: AbortSignal | undefined,
    forceRefresh: boolean,
  ): Promise<string> {
    if (parts.idTokens) {
      const result = await parts.idTokens.get(service, {
        ...(signal ? { signal } : {}),
        ...(forceRefresh ? { forceRefresh } : {}),
      });
      if (result.inGrace) events.emit('idTokenGrace', { expiresAt: result.expiresAt });
      return `${options.names.idTokenScheme} ${result.token}`;
    }
    if (parts.serviceKeyHash) {
      return `${options.names.serviceKeyHashScheme} ${await parts.serviceKeyHash()}`;
    }
    throw new LicensingError('UNAUTHORIZED', 'No authorization configured');
  }

  async function headersFor(
    service: LicensingService,
    spec: RequestSpec,
    signal: AbortSignal | undefined,
    forceRefresh: boolean,
  ): Promise<Record<string, string>> {
    let auth: string;
    try {
      auth = await authorization(service, signal, forceRefresh);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      // No fresh ID token for main (the identity provider may be down with it): count it as a
      // main failure so the call can still reach the standby within the grace.
      if (service === 'main' && isLicensingError(error) && error.code !== 'ID_TOKEN_EXPIRED') {
        throw new FailedAttempt({ ok: false, outage: true, reason: 'id-token-unavailable', error });
      }
      throw error;
    }
    const headers: Record<string, string> = { authorization: auth };
    headers.accept = spec.expect === 'jwt' ? 'application/jwt' : 'application/json';
    if (spec.contentType) headers['content-type'] = spec.contentType;
    if (spec.signingKey && service === 'standby' && options.signingKeyId !== undefined) {
      headers[options.names.signingKeyIdHeader] = options.signingKeyId;
    }
    return headers;
  }

  /** One attempt (plus one forced ID-token refresh after a main 401); throws FailedAttempt. */
  async function request(service: LicensingService, spec: RequestSpec, signal?: AbortSignal) {
    const url = `${baseUrl(service)}${spec.path}${spec.query ? `?${spec.query}` : ''}`;
    for (let refreshed = false; ; refreshed = true) {
      const outcome = await sendHttpAttempt({
        fetch: options.fetch,
        url,
        method: spec.method ?? 'GET',
        headers: await headersFor(service, spec, signal, refreshed),
        ...(spec.body === undefined ? {} : { body: spec.body }),
        timeoutMs: options.failover.attemptTimeoutMs,
        signal,
      });
      const verdict = classifyFailure(outcome, {
        service,
        expect: spec.expect,
        now: options.now(),
      });
      if (verdict.ok && outcome.kind === 'response') return { url, body: outcome.body };
      if (verdict.ok) throw new Error('unreachable');
      const retryWithFreshToken =
        !refreshed && service === 'main' && verdict.reason === 'unauthorized' && parts.idTokens;
      if (!retryWithFreshToken) throw new FailedAttempt(verdict);
    }
  }

  async function loadJwks(service: LicensingService, signal?: AbortSignal): Promise<JwkSet> {
    try {
      const { body } = await request(
        service,
        { path: '/.well-known/jwks.json', expect: 'json' },
        signal,
      );
      const jwks = JSON.parse(body) as JwkSet;
      if (!jwks || !Array.isArray(jwks.keys)) throw new TypeError('JWKS without keys');
      return jwks;
    } catch (error) {
      throw error instanceof FailedAttempt ? error.verdict.error : error;
    }
  }

  const verifier = parts.createVerifier(loadJwks, events);

  async function checkStandbyEnabled(signal: AbortSignal): Promise<boolean> {
    const { body } = await request('standby', { path: '/enabled', expect: 'json' }, signal);
    return JSON.parse(body) === true;
  }

  /**
   * Strategy B's probe: `GET <main>/.well-known/jwks.json` without credentials (so no ID-token
   * refresh while the identity provider may be down) and no lease traffic. Any answer that is
   * not an outage, even a 401, means main is reachable again.
   */
  async function probeMain(signal: AbortSignal): Promise<boolean> {
    const outcome = await sendHttpAttempt({
      fetch: options.fetch,
      url: `${options.mainUrl}/.well-known/jwks.json`,
      headers: { accept: 'application/json' },
      timeoutMs: options.failover.attemptTimeoutMs,
      signal,
    });
    const verdict = classifyFailure(outcome, {
      service: 'main',
      expect: 'json',
      now: options.now(),
    });
    return verdict.ok || !verdict.outage;
  }

  const deps: FailoverDeps = { options, events, checkStandbyEnabled, probeMain };
  const strategy: FailoverStrategy =
    options.failover.strategy === 'B' ? createStrategyB(deps) : createStrategyA(deps);

  const echoes = {
    hardwareId: options.hardwareId,
    hardwareName: options.hardwareName,
    version: options.version,
  };

  /** Tokens of an `/authz/.jwt` answer, exactly `count` of them. */
  async function authz(
    service: LicensingService,
    query: string,
    count: number,
    signal?: AbortSignal,
  ) {
    const { url, body } = await request(
      service,
      { path: '/authz/.jwt', query, expect: 'jwt', signingKey: true },
      signal,
    );
    const tokens = splitTokens(body);
    if (!tokens || tokens.length !== count) {
      throw malformed(service, url, `expected ${count} token(s), got ${tokens?.length ?? 0}`);
    }
    return tokens;
  }

  async function checkoutOn(
    service: LicensingService,
    items: readonly AuthzItem[],
    signal?: AbortSignal,
  ): Promise<CheckoutResult> {
    const tokens = await authz(service, buildCheckoutQuery(items, echoes), items.length, signal);
    const outcomes = await Promise.all(
      items.map(async ({ item }, i) => {
        const token = tokens[i]!;
        let denial: DeniedItem | undefined;
        try {
          denial = service === 'main' ? readDenial(item, decodeJwt(token)) : undefined;
        } catch (error) {
          throw new LicensingError(
            'TOKEN_INVALID',
            `${service}: token for '${item}' is not a JWT`,
            {
              cause: error,
            },
          );
        }
        if (denial) {
          // Verified too: a forged denial must not hide an outage or a grant.
          await verifier.verify(token, { service, ...(signal ? { signal } : {}) });
          return denial;
        }
        const claims = await verifier.verify(token, {
          service,
          item,
          ...(signal ? { signal } : {}),
        });
        return toLease(item, token, claims, service);
      }),
    );
    const result: CheckoutResult = { leases: [], denied: [] };
    for (const outcome of outcomes) {
      if ('leaseId' in outcome) result.leases.push(outcome);
      else result.denied.push(outcome);
    }
    return result;
  }

  function assertOpen() {
    if (closed) throw new LicensingError('CLIENT_CLOSED', 'The licensing client is closed');
  }

  function run<T>(operation: AttemptOperation<T>, signal?: AbortSignal): Promise<T> {
    return strategy.run(operation, signal);
  }

  async function renew(lease: Lease, callOptions: CallOptions = {}): Promise<Lease> {
    assertOpen();
    if (!isLease(lease)) throw invalid('renew() needs a lease returned by checkout()');
    const { signal } = callOptions;
    const { lease: renewed, reissued } = await run(async (service, attemptSignal) => {
      if (service === 'main' && lease.servedBy === 'standby') {
        // Main never saw this standby lease id: check the item out anew.
        const fresh = await checkoutOn(
          service,
          [{ item: lease.item, licenseId: undefined }],
          attemptSignal,
        );
        const granted = fresh.leases[0];
        if (!granted) throw deniedError(fresh.denied[0]!);
        return { lease: granted, reissued: true };
      }
      const [token] = await authz(
        service,
        buildRenewQuery(lease.item, lease.leaseId, echoes),
        1,
        attemptSignal,
      );
      if (service === 'main') {
        const denial = readDenial(lease.item, decodeJwt(token!));
        if (denial) throw deniedError(denial);
      }
      const claims = await verifier.verify(token!, {
        service,
        item: lease.item,
        ...(attemptSignal ? { signal: attemptSignal } : {}),
      });
      return { lease: toLease(lease.item, token!, claims, service), reissued: false };
    }, signal);
    events.emit('leaseRenewed', { previous: lease, lease: renewed, reissued });
    return renewed;
  }

  async function release(leases: Lease | readonly Lease[], callOptions: CallOptions = {}) {
    assertOpen();
    await releaseLeases(leases, callOptions);
  }

  async function releaseLeases(leases: Lease | readonly Lease[], { signal }: CallOptions) {
    const list = (Array.isArray(leases) ? leases : [leases]) as readonly Lease[];
    if (list.length === 0) return;
    if (!list.every(isLease)) throw invalid('release() needs leases returned by checkout()');
    const ids = [...new Set(list.map((lease) => lease.leaseId))];
    await run(async (service, attemptSignal) => {
      const [token] = await authz(service, buildReleaseQuery(ids), 1, attemptSignal);
      await verifier.verify(token!, {
        service,
        ...(attemptSignal ? { signal: attemptSignal } : {}),
      });
    }, signal);
  }

  const client: LicensingClient = {
    on: events.on,
    get activeService() {
      return strategy.activeService;
    },

    async checkout(items, callOptions = {}) {
      assertOpen();
      const normalized = normalizeItems(items);
      return run((service, signal) => checkoutOn(service, normalized, signal), callOptions.signal);
    },

    renew,
    release,

    async verify(token, verifyOptions = {}) {
      assertOpen();
      if (typeof token !== 'string') throw invalid('verify() needs a token string');
      let decoded: Record<string, unknown>;
      try {
        decoded = decodeJwt(token);
      } catch (error) {
        throw new LicensingError('TOKEN_INVALID', 'Not a JWT', { cause: error });
      }
      const service =
        verifyOptions.service ??
        (typeof decoded.iss === 'string' && decoded.iss.startsWith(options.standbyUrl)
          ? 'standby'
          : 'main');
      let item = verifyOptions.item;
      if (item === undefined) {
        const granted = Object.keys(decoded).filter((key) => decoded[key] === true);
        if (granted.length !== 1) {
          throw invalid('verify() could not tell which item the token grants: pass options.item');
        }
        item = granted[0]!;
      }
      const claims = await verifier.verify(token, {
        service,
        item,
        ...(verifyOptions.signal ? { signal: verifyOptions.signal } : {}),
      });
      return toLease(item, token, claims, service);
    },

    async checkoutProducts(products, callOptions = {}) {
      assertOpen();
      if (!parts.idTokens) throw invalid('checkoutProducts() needs auth.idToken');
      validateProducts(products);
      const { signal } = callOptions;
      const main = await tryMainAttempts(
        async (service, attemptSignal) => {
          const { url, body } = await request(
            service,
            {
              path: '/licensing/actions/checkout',
              method: 'POST',
              body: JSON.stringify(products),
              contentType: 'application/json',
              expect: 'json',
            },
            attemptSignal,
          );
          const parsed = JSON.parse(body) as unknown;
          if (!Array.isArray(parsed)) throw malformed(service, url, 'expected a JSON array');
          return parsed as ProductCheckoutResult[];
        },
        deps,
        signal,
      );
      if (!main.ok) {
        throw new LicensingError('SERVICE_UNAVAILABLE', 'The main licensing service failed', {
          cause: new AggregateError(main.errors, 'main attempts'),
        });
      }
      return Promise.all(
        main.value.map(async (entry) => {
          if (typeof entry.jwt !== 'string') return entry;
          const claims = await verifier.verify(entry.jwt, {
            service: 'main',
            ...(signal ? { signal } : {}),
          });
          return { ...entry, claims };
        }),
      );
    },

    keepAlive(leases, keeperOptions = {}) {
      assertOpen();
      const keeper = createLeaseKeeper(
        {
          renew,
          checkout: (items, o) => client.checkout(items, o),
          release: (l, o) => releaseLeases(l, o ?? {}),
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
  return client;
}

function deniedError(denial: DeniedItem): LicensingError {
  return new LicensingError('LICENSE_DENIED', `'${denial.item}' was denied: ${denial.code}`, {
    cause: denial,
  });
}

const DIMENSIONS = ['SEATS', 'USE_COUNT', 'USE_TIME'];

function validateProducts(products: readonly ProductCheckout[]) {
  if (!Array.isArray(products) || products.length === 0) {
    throw invalid('products must be a non-empty array');
  }
  products.forEach((product, i) => {
    if (typeof product?.productName !== 'string' || product.productName === '') {
      throw invalid(`products[${i}].productName must be a non-empty string`);
    }
    if (!Number.isInteger(product.qty) || product.qty < 1) {
      throw invalid(`products[${i}].qty must be an integer >= 1`);
    }
    if (!DIMENSIONS.includes(product.qtyDimension)) {
      throw invalid(`products[${i}].qtyDimension must be one of ${DIMENSIONS.join(', ')}`);
    }
  });
}
