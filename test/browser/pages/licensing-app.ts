// Page script of the licensing browser tests (licensing-client, lease-store-reload,
// cors-refused), bundled from the built SDK: a web app that checks out, verifies, renews and
// releases leases with `createLicensingClient`, cross-origin, on the browser's own `fetch` and
// WebCrypto. The test hands it the service URLs and the embedded roots.
import {
  createLicensingClient,
  createMemoryLeaseStore,
  createWebStorageLeaseStore,
  type Lease,
  type LeaseClaims,
  type LicensingClient,
  type LicensingClientOptions,
  type LicensingEventMap,
  type LicensingService,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import { isNative, type Outcome, outcome } from './page-report.js';

/** How the page's app is set up. */
export interface LicensingAppConfig {
  mainUrl: string;
  standbyUrl: string;
  /** The embedded roots (what `embed-root` wrote). */
  roots: TrustedRoot[];
  /**
   * The ID token: a ready one, or the issuer the page asks for one (`POST <issuerUrl>/token`,
   * cross-origin), as an app's OIDC client would sign the user in.
   */
  idToken: { token: string } | { issuerUrl: string; sub: string };
  strategy?: 'A' | 'B';
  mainAttempts?: number;
  /** Backoff between main attempts (base and maximum), in ms. Default the SDK's. */
  backoffMs?: number;
  retryAfterMaxMs?: number;
  attemptTimeoutMs?: number;
  /** Where leases are kept. Default `'memory'`. */
  leaseStore?: 'memory' | 'local-storage';
  /** Added to the page's clock, in ms (negative: the clock was set back). Default 0. */
  clockOffsetMs?: number;
}

/** A lease as plain data. */
export interface LeaseReport {
  item: string;
  leaseId: string;
  licenseId: string;
  servedBy: LicensingService;
  expiresAt: number;
  token: string;
  claims: LeaseClaims;
}

/** One event of the client, as plain data. */
export interface EventRecord {
  name: keyof LicensingEventMap;
  service?: string;
  attempt?: number;
  reason?: string;
  retryInMs?: number;
  errorCode?: string;
  strategy?: string;
}

/** The page's surface, on `window.licensingApp`. */
export interface LicensingAppPage {
  environment(): { origin: string; secureContext: boolean; subtle: boolean; nativeFetch: boolean };
  /** Creates the app's client (closing an earlier one). */
  start(config: LicensingAppConfig): Promise<void>;
  checkout(items: string[]): Promise<Outcome<{ leases: LeaseReport[]; denied: string[] }>>;
  verify(token: string): Promise<Outcome<LeaseReport>>;
  renew(leaseId: string): Promise<Outcome<LeaseReport>>;
  release(leaseIds: string[]): Promise<Outcome<null>>;
  restore(): Promise<Outcome<LeaseReport[]>>;
  activeService(): LicensingService;
  /** Every event the client emitted since `start`. */
  events(): EventRecord[];
  /** How often the app asked its issuer for an ID token. */
  idTokenRequests(): number;
  /** The Web Storage item the lease store writes, or null. */
  storedState(): string | null;
  close(): Promise<void>;
}

declare global {
  interface Window {
    licensingApp: LicensingAppPage;
  }
}

let client: LicensingClient | undefined;
let events: EventRecord[] = [];
let idTokenRequests = 0;
const leases = new Map<string, Lease>();

function report(lease: Lease): LeaseReport {
  leases.set(lease.leaseId, lease);
  const { item, leaseId, licenseId, servedBy, expiresAt, token, claims } = lease;
  return { item, leaseId, licenseId, servedBy, expiresAt, token, claims };
}

function requireClient(): LicensingClient {
  if (!client) throw new Error('licensingApp.start() first');
  return client;
}

function leaseOf(leaseId: string): Lease {
  const lease = leases.get(leaseId);
  if (!lease) throw new Error(`no lease ${leaseId} on this page`);
  return lease;
}

function idTokenSource(config: LicensingAppConfig['idToken']): () => Promise<string> {
  if ('token' in config) return async () => config.token;
  return async () => {
    idTokenRequests += 1;
    const response = await fetch(`${config.issuerUrl}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sub: config.sub }),
    });
    if (!response.ok) throw new Error(`the issuer answered HTTP ${response.status}`);
    return ((await response.json()) as { id_token: string }).id_token;
  };
}

function record<K extends keyof LicensingEventMap>(name: K) {
  return (event: LicensingEventMap[K]) => {
    const e = event as Partial<Record<string, unknown>>;
    const entry: EventRecord = { name };
    if (typeof e.service === 'string') entry.service = e.service;
    if (typeof e.attempt === 'number') entry.attempt = e.attempt;
    if (typeof e.reason === 'string') entry.reason = e.reason;
    if (typeof e.retryInMs === 'number') entry.retryInMs = e.retryInMs;
    if (typeof e.strategy === 'string') entry.strategy = e.strategy;
    const error = e.error as { code?: unknown } | undefined;
    if (typeof error?.code === 'string') entry.errorCode = error.code;
    events.push(entry);
  };
}

window.licensingApp = {
  environment: () => ({
    origin: location.origin,
    secureContext: globalThis.isSecureContext,
    subtle: typeof globalThis.crypto?.subtle?.verify === 'function',
    nativeFetch: isNative(globalThis.fetch),
  }),

  async start(config) {
    await client?.close();
    events = [];
    leases.clear();
    const offset = config.clockOffsetMs ?? 0;
    const options: LicensingClientOptions = {
      mainUrl: config.mainUrl,
      standbyUrl: config.standbyUrl,
      auth: { idToken: idTokenSource(config.idToken) },
      trust: { rootCertificates: config.roots },
      failover: {
        strategy: config.strategy ?? 'A',
        ...(config.mainAttempts === undefined ? {} : { mainAttempts: config.mainAttempts }),
        ...(config.backoffMs === undefined
          ? {}
          : { backoffBaseMs: config.backoffMs, backoffMaxMs: config.backoffMs }),
        ...(config.retryAfterMaxMs === undefined
          ? {}
          : { retryAfterMaxMs: config.retryAfterMaxMs }),
        ...(config.attemptTimeoutMs === undefined
          ? {}
          : { attemptTimeoutMs: config.attemptTimeoutMs }),
      },
      hardwareId: 'chromium-page',
      leaseStore:
        config.leaseStore === 'local-storage'
          ? createWebStorageLeaseStore()
          : createMemoryLeaseStore(),
      on: {
        attemptFailed: record('attemptFailed'),
        failover: record('failover'),
        failback: record('failback'),
        circuitOpen: record('circuitOpen'),
        circuitClose: record('circuitClose'),
        idTokenGrace: record('idTokenGrace'),
      },
      // No `fetch` option: the SDK uses the page's own.
      ...(offset === 0 ? {} : { now: () => Date.now() + offset }),
    };
    client = createLicensingClient(options);
  },

  checkout: (items) =>
    outcome(async () => {
      const result = await requireClient().checkout(items);
      return { leases: result.leases.map(report), denied: result.denied.map((d) => d.item) };
    }),
  verify: (token) => outcome(async () => report(await requireClient().verify(token))),
  renew: (leaseId) => outcome(async () => report(await requireClient().renew(leaseOf(leaseId)))),
  release: (leaseIds) =>
    outcome(async () => {
      await requireClient().release(leaseIds.map(leaseOf));
      return null;
    }),
  restore: () => outcome(async () => (await requireClient().restore()).leases.map(report)),
  activeService: () => requireClient().activeService,
  events: () => events,
  idTokenRequests: () => idTokenRequests,
  storedState: () => localStorage.getItem('standby-licensing:state'),
  async close() {
    await client?.close();
    client = undefined;
  },
};
