/**
 * desktop-app.ts: a desktop app that keeps its licenses through an outage of the main service.
 *
 * What it does:
 *   The app embeds the standby's root certificate, checks out one lease per licensed item, and
 *   hands the leases to the SDK's lease keeper, which renews them in the background. While the
 *   keeper renews, the example breaks the main licensing service through the mock server's
 *   admin fault API, then repairs it. Every checkout and renewal is printed with the service
 *   that served it: main, then the standby during the outage, then main again.
 *
 * Steps:
 *   1. Sign in: get an ID token from the mock's built-in identity provider.
 *   2. Embed the roots: the standby's (import the module `standby-licensing embed-root` wrote,
 *      STANDBY_ROOT_MODULE, or, as that command does, read the root of the standby's current
 *      signing key from its JWK set with the ID token) and the main service's (read from main's
 *      JWKS: see Assumptions).
 *   3. Create the licensing client with Strategy B (sticky standby) and short timeouts.
 *   4. Check out the items and keep the leases with `client.keepAlive()`.
 *   5. Let the keeper renew on main, break main (`POST /admin/faults`), let it renew on the
 *      standby, repair main (`DELETE /admin/faults`), let it fail back and renew on main.
 *   6. Close the client: the keeper releases the leases. Exit 0.
 *
 * Needs:
 *   - A mock server with the standby active and the admin API on (the example breaks and repairs
 *     main through the admin fault API), in another terminal:
 *       npm run -s mock-server -- --state active --admin --api-key dev-key
 *     Nothing else: no prior step, no API key. It changes nothing on the mock but the fault it
 *     sets and clears, and the leases it takes and releases.
 *   - Run from the repo root after `npm install`: `npx tsx examples/desktop-app.ts`.
 *     (tsx maps `@standby-licensing/sdk` to the SDK's source through tsconfig.json, no build.)
 *
 * Assumptions:
 *   - Environment (all optional): MAIN_URL, STANDBY_URL, IDP_URL, ADMIN_URL (defaults
 *     http://127.0.0.1:8787/main, /standby, /idp, /admin); STANDBY_ROOT_MODULE, a module written
 *     by `standby-licensing embed-root` (e.g. .walkthrough/roots/standby-root.ts), to use
 *     instead of reading the standby's JWK set.
 *   - A shipped app compiles its roots in. The mock makes new keys on every start without
 *     --data-dir, so the example reads the standby's root from the standby's JWK set and main's
 *     from the last `x5c` entry of main's JWKS (trust on first use: DEMO ONLY), unless
 *     STANDBY_ROOT_MODULE and MAIN_ROOT_FILE (a PEM file) name them.
 *   - Leases last 8 h and are due for renewal after 6 h. So that the keeper renews every second
 *     instead, it is given `maxRefreshIntervalMs` (DEMO ONLY: a real app renews at `refreshAt`).
 *   - The keeper renews both leases at about the same moment, concurrently; the timeline at the
 *     end is per item (see `DesktopAppReport.timelines`).
 */

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createLicensingClient,
  type LicensingService,
  type TrustedRoot,
} from '@standby-licensing/sdk';

/** Options of {@link main}; each defaults to its environment variable, then to the local mock. */
export interface DesktopAppOptions {
  /** Base URL of the main licensing service. Env MAIN_URL. */
  mainUrl?: string;
  /** Base URL of the standby licensing service. Env STANDBY_URL. */
  standbyUrl?: string;
  /** Base URL of the mock's identity provider. Env IDP_URL. */
  idpUrl?: string;
  /** Base URL of the mock's admin API (fault injection). Env ADMIN_URL. */
  adminUrl?: string;
  /** Module written by `standby-licensing embed-root` (exports `rootCertificate`). Env STANDBY_ROOT_MODULE. */
  rootModule?: string;
  /** PEM file of the main service's root certificate. Env MAIN_ROOT_FILE. Default: from main's JWKS. */
  mainRootFile?: string;
  /** Licensed items to check out. Default `['ItemA', 'ItemB']`. */
  items?: string[];
  /** Renewals of every item in each phase (main, outage, main again). Default 2. */
  renewalsPerPhase?: number;
  /** Time between two renewals of a lease, in ms (see the clock note above). Default 1 000. */
  renewEveryMs?: number;
  /** Longest wait for one phase, in ms. Default 20 000. */
  phaseTimeoutMs?: number;
  /** Where the app prints. Default `console.log`. */
  log?: (line: string) => void;
}

/** One checkout or renewal, in the order they happened. */
export interface ServedRecord {
  kind: 'checkout' | 'renewal';
  item: string;
  servedBy: LicensingService;
  /** The lease was issued anew (a standby lease renewed on main is checked out again). */
  reissued: boolean;
}

/** What the run did, for tests and for the final summary. */
export interface DesktopAppReport {
  served: ServedRecord[];
  /**
   * Per item, the services that served its checkout and renewals in order, consecutive repeats
   * collapsed: `['main', 'standby', 'main']`. Per item, because the keeper renews the leases
   * concurrently: when the client switches services, a renewal of one item that started before
   * the switch can finish after a renewal of another item that started after it, so one
   * timeline over all items may read main, standby, main, standby, main.
   */
  timelines: Record<string, LicensingService[]>;
  /** Leases released on close. */
  released: number;
}

const env = (name: string, fallback: string) => process.env[name] || fallback;

/** Runs the desktop app once and returns what it observed. */
export async function main(options: DesktopAppOptions = {}): Promise<DesktopAppReport> {
  const mainUrl = options.mainUrl ?? env('MAIN_URL', 'http://127.0.0.1:8787/main');
  const standbyUrl = options.standbyUrl ?? env('STANDBY_URL', 'http://127.0.0.1:8787/standby');
  const idpUrl = options.idpUrl ?? env('IDP_URL', 'http://127.0.0.1:8787/idp');
  const adminUrl = options.adminUrl ?? env('ADMIN_URL', 'http://127.0.0.1:8787/admin');
  const rootModule = options.rootModule ?? process.env.STANDBY_ROOT_MODULE;
  const mainRootFile = options.mainRootFile ?? process.env.MAIN_ROOT_FILE;
  const items = options.items ?? ['ItemA', 'ItemB'];
  const renewalsPerPhase = options.renewalsPerPhase ?? 2;
  const renewEveryMs = options.renewEveryMs ?? 1_000;
  const phaseTimeoutMs = options.phaseTimeoutMs ?? 20_000;
  const log = options.log ?? ((line: string) => console.log(line));

  // 1. The user's ID token; a real app gets it from its OIDC sign-in.
  const idToken = await signIn(idpUrl, 'desktop-user');
  await requireStandbyEnabled(standbyUrl, idToken);

  // 2. The root certificates every lease must chain to. In a shipped app they are compiled in.
  const standbyRoot = rootModule
    ? await importRoot(rootModule)
    : await readStandbyRoot(standbyUrl, idToken);
  const mainRoot: TrustedRoot = {
    pem: mainRootFile ? await readFile(mainRootFile, 'utf8') : await readMainRoot(mainUrl),
  };
  log(`roots embedded: standby signing key ${standbyRoot.keyId ?? '(no key id)'}, main`);

  // 3. The client. The clock offset starts at 0 and is set after the first checkout.
  const served: ServedRecord[] = [];
  const waiters = new Set<() => void>();
  const record = (entry: ServedRecord) => {
    served.push(entry);
    const extra = entry.reissued ? ' (new lease: main never saw the standby one)' : '';
    log(`${entry.kind.padEnd(8)} ${entry.item} served by ${entry.servedBy}${extra}`);
    for (const wake of waiters) wake();
  };
  const client = createLicensingClient({
    mainUrl,
    standbyUrl,
    auth: { idToken: () => idToken },
    failover: {
      strategy: 'B',
      mainAttempts: 2,
      attemptTimeoutMs: 2_000,
      backoffBaseMs: 50,
      backoffMaxMs: 200,
      // The mock's 503 says Retry-After: 30; wait at most 100 ms here (default 10 s).
      retryAfterMaxMs: 100,
      // While on the standby, look for main every 300 ms (default 30 s).
      probeIntervalMs: 300,
    },
    trust: { rootCertificates: [standbyRoot, mainRoot] },
    hardwareId: 'desktop-42',
    version: '3.1.0',
    on: {
      attemptFailed: (e) => log(`  ${e.service} attempt ${e.attempt} failed: ${e.reason}`),
      failover: (e) => log(`  failover ${e.from} -> ${e.to} (Strategy ${e.strategy})`),
      failback: (e) => log(`  failback ${e.from} -> ${e.to} (${e.reason})`),
      leaseRenewed: (e) =>
        record({
          kind: 'renewal',
          item: e.lease.item,
          servedBy: e.lease.servedBy,
          reissued: e.reissued,
        }),
      renewFailed: (e) => log(`  renewal of ${e.lease.item} failed (${e.failures}), retrying`),
    },
  });

  let outage = false;
  try {
    // 4. Check out and keep the leases.
    const { leases, denied } = await client.checkout(items);
    if (denied.length > 0) throw new Error(`denied: ${denied.map((d) => d.item).join(', ')}`);
    for (const lease of leases) {
      record({ kind: 'checkout', item: lease.item, servedBy: lease.servedBy, reissued: false });
    }
    const keeper = client.keepAlive(leases, {
      retryBaseMs: 200,
      retryMaxMs: 2_000,
      maxRefreshIntervalMs: renewEveryMs,
    });

    // Waits until every item got `renewalsPerPhase` renewals from `service` after `from`.
    const phase = async (service: LicensingService) => {
      const from = served.length;
      const done = () =>
        items.every(
          (item) =>
            served.slice(from).filter((s) => s.item === item && s.servedBy === service).length >=
            renewalsPerPhase,
        );
      await waitUntil(done, waiters, phaseTimeoutMs, `${renewalsPerPhase} renewals on ${service}`);
    };

    // 5. Renew on main, through the outage on the standby, then on main again.
    await phase('main');
    log(`>>> main outage: POST ${adminUrl}/faults {"mode":"error","status":503}`);
    outage = true;
    await admin(adminUrl, 'POST', { mode: 'error', status: 503 });
    await phase('standby');
    log(`>>> main repaired: DELETE ${adminUrl}/faults`);
    await admin(adminUrl, 'DELETE');
    outage = false;
    await phase('main');

    // 6. Closing the keeper releases its leases (best effort, as the spec says).
    const released = keeper.leases.length;
    await keeper.close();
    log(`released ${released} leases; done`);
    const timelines = Object.fromEntries(
      items.map((item) => [
        item,
        served
          .filter((s) => s.item === item)
          .map((s) => s.servedBy)
          .filter((service, i, all) => i === 0 || all[i - 1] !== service),
      ]),
    );
    return { served, timelines, released };
  } finally {
    // Never leave the shared mock broken, even when the run fails half-way.
    if (outage) await admin(adminUrl, 'DELETE').catch(() => undefined);
    await client.close();
  }
}

/** Loads the root from a module written by `standby-licensing embed-root`. */
async function importRoot(path: string): Promise<TrustedRoot> {
  const module = (await import(pathToFileURL(resolve(path)).href)) as {
    rootCertificate?: TrustedRoot;
  };
  if (!module.rootCertificate) throw new Error(`${path} exports no rootCertificate`);
  return module.rootCertificate;
}

/**
 * DEMO ONLY: what `standby-licensing embed-root --standby-url` embeds, the root (last `x5c`
 * entry) and key id of the standby's current key, the first of its JWK set.
 */
async function readStandbyRoot(standbyUrl: string, idToken: string): Promise<TrustedRoot> {
  const response = await fetch(`${standbyUrl}/.well-known/jwks.json`, {
    headers: { Authorization: `IdToken ${idToken}` },
  });
  if (!response.ok) {
    throw new Error(`GET ${standbyUrl}/.well-known/jwks.json: HTTP ${response.status}`);
  }
  const { keys } = (await response.json()) as { keys: Array<{ kid: string; x5c?: string[] }> };
  const der = keys[0]?.x5c?.at(-1);
  if (!der) throw new Error("the standby's JWKS has no x5c chain");
  return { pem: toPem(der), keyId: keys[0]!.kid };
}

/** PEM text of a base64 DER certificate (an `x5c` entry). */
function toPem(der: string): string {
  const lines = der.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Fails fast when the standby could not take over (the mock starts dormant by default). */
async function requireStandbyEnabled(standbyUrl: string, idToken: string): Promise<void> {
  const response = await fetch(`${standbyUrl}/enabled`, {
    headers: { Authorization: `IdToken ${idToken}` },
  });
  if (!response.ok) throw new Error(`GET ${standbyUrl}/enabled: HTTP ${response.status}`);
  if ((await response.json()) !== true) {
    throw new Error('the standby is not enabled: start the mock server with --state active');
  }
}

/** DEMO ONLY: the main root as the last `x5c` certificate of main's JWKS, as PEM. */
async function readMainRoot(mainUrl: string): Promise<string> {
  const response = await fetch(`${mainUrl}/.well-known/jwks.json`);
  if (!response.ok)
    throw new Error(`GET ${mainUrl}/.well-known/jwks.json: HTTP ${response.status}`);
  const { keys } = (await response.json()) as { keys: Array<{ x5c?: string[] }> };
  const der = keys[0]?.x5c?.at(-1);
  if (!der) throw new Error('main JWKS has no x5c chain');
  return toPem(der);
}

/** An ID token from the mock's identity provider, valid for a day (the app's clock runs ahead). */
async function signIn(idpUrl: string, sub: string): Promise<string> {
  const response = await fetch(`${idpUrl}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub, expiresInSeconds: 86_400 }),
  });
  if (!response.ok) throw new Error(`POST ${idpUrl}/token: HTTP ${response.status}`);
  return ((await response.json()) as { id_token: string }).id_token;
}

/** Sets (`POST`) or clears (`DELETE`) a fault on every main route through the admin API. */
async function admin(adminUrl: string, method: 'POST' | 'DELETE', fault?: object): Promise<void> {
  const response = await fetch(`${adminUrl}/faults`, {
    method,
    ...(fault
      ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(fault) }
      : {}),
  });
  if (response.status === 404) {
    throw new Error('the mock server has no admin API: start it with --admin');
  }
  if (!response.ok) throw new Error(`${method} ${adminUrl}/faults: HTTP ${response.status}`);
}

/** Resolves once `done()` holds, re-checked whenever a waiter is woken; rejects after timeoutMs. */
function waitUntil(
  done: () => boolean,
  waiters: Set<() => void>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  if (done()) return Promise.resolve();
  return new Promise((resolvePromise, reject) => {
    const wake = () => {
      if (!done()) return;
      clearTimeout(timer);
      waiters.delete(wake);
      resolvePromise();
    };
    const timer = setTimeout(() => {
      waiters.delete(wake);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    waiters.add(wake);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (report) => {
      for (const [item, timeline] of Object.entries(report.timelines)) {
        console.log(`timeline of ${item}: ${timeline.join(' -> ')}`);
      }
    },
    (error: unknown) => {
      console.error(error);
      if ((error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED') {
        console.error(
          'Is the mock running? npm run -s mock-server -- --state active --admin --api-key dev-key',
        );
      }
      process.exitCode = 1;
    },
  );
}
