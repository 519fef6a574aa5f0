/**
 * quick-start.ts: the README's quick start, as a whole program.
 *
 * What it does:
 *   Creates a licensing client whose trust is the root certificates embedded in the app, checks
 *   out two items, hands the leases to the lease keeper, and then renews them every few seconds,
 *   printing which service served each renewal. Break the main service meanwhile (admin fault
 *   API) and the renewals come from the standby; repair it and they come from main again.
 *
 * Steps:
 *   1. Embed the roots (once, at build time; the modules are git-ignored):
 *        npm run standby-licensing -- embed-root --standby-url http://127.0.0.1:8787/standby \
 *          --api-key dev-key --out examples/roots/standby-root.ts
 *        npm run standby-licensing -- embed-root --jwks-url \
 *          http://127.0.0.1:8787/main/.well-known/jwks.json --out examples/roots/main-root.ts \
 *          --export-name mainRoot
 *   2. Run it: `npx tsx examples/quick-start.ts` (Ctrl-C stops it and releases the leases).
 *   3. In another terminal, break main, then repair it:
 *        curl -X POST http://127.0.0.1:8787/admin/faults -H 'Content-Type: application/json' \
 *          -d '{"mode":"error","status":503}'
 *        curl -X DELETE http://127.0.0.1:8787/admin/faults
 *
 * Assumptions:
 *   - `npm run mock-server -- --state active --admin --api-key dev-key` runs in another terminal.
 *   - The ID token comes from the mock's built-in issuer; a real app signs its user in with its
 *     OIDC provider and returns that token from `auth.idToken`.
 *   - Renewing every few seconds is for the demo; a real app lets `keepAlive` renew at each
 *     lease's `refreshAt` (6 h into an 8 h lease).
 *   - Environment (optional): MAIN_URL, STANDBY_URL, IDP_URL (defaults: the mock on port 8787).
 */

import { pathToFileURL } from 'node:url';
import {
  createLicensingClient,
  isLicensingError,
  type LicensingService,
  type TrustedRoot,
} from '@standby-licensing/sdk';

/** Options of {@link main}; URLs default to their environment variables, then the local mock. */
export interface QuickStartOptions {
  mainUrl?: string;
  standbyUrl?: string;
  idpUrl?: string;
  /** The embedded roots. Default: the modules in examples/roots/ written by embed-root. */
  roots?: TrustedRoot[];
  /** Renewal rounds before closing. Default: until `signal` aborts. */
  rounds?: number;
  /** Pause between renewal rounds, in ms. Default 3000. */
  intervalMs?: number;
  /** Called after each round with the services that served it (lets a test break main). */
  afterRound?: (round: number, servedBy: LicensingService[]) => Promise<void> | void;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

const env = (name: string, fallback: string) => process.env[name] ?? fallback;

/** Loads the root modules that `standby-licensing embed-root` wrote into examples/roots/. */
async function loadEmbeddedRoots(): Promise<TrustedRoot[]> {
  const folder = new URL('./roots/', import.meta.url);
  try {
    const standby = await import(new URL('standby-root.ts', folder).href);
    const main = await import(new URL('main-root.ts', folder).href);
    return [standby.rootCertificate as TrustedRoot, main.mainRoot as TrustedRoot];
  } catch (cause) {
    throw new Error(
      'No embedded roots in examples/roots/: run the two embed-root commands in the header of examples/quick-start.ts first',
      { cause },
    );
  }
}

/** Signs in at the mock's issuer; a real app returns its OIDC provider's ID token here. */
async function signIn(idpUrl: string): Promise<string> {
  const res = await fetch(`${idpUrl}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub: 'quick-start-user' }),
  });
  if (!res.ok) throw new Error(`sign-in failed: HTTP ${res.status}`);
  return ((await res.json()) as { id_token: string }).id_token;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Runs the quick start; resolves with the service that served each round. */
export async function main(options: QuickStartOptions = {}): Promise<LicensingService[][]> {
  const log = options.log ?? console.log;
  const idpUrl = options.idpUrl ?? env('IDP_URL', 'http://127.0.0.1:8787/idp');
  const client = createLicensingClient({
    mainUrl: options.mainUrl ?? env('MAIN_URL', 'http://127.0.0.1:8787/main'),
    standbyUrl: options.standbyUrl ?? env('STANDBY_URL', 'http://127.0.0.1:8787/standby'),
    auth: { idToken: () => signIn(idpUrl) },
    failover: { strategy: 'B', mainAttempts: 2, probeIntervalMs: 2_000 },
    trust: { rootCertificates: options.roots ?? (await loadEmbeddedRoots()) },
    hardwareId: 'workstation-42',
    version: '1.0.0',
    on: {
      failover: () => log('  ! main failed: licensing moved to the standby'),
      failback: (e) => log(`  ! back on main (${e.reason})`),
    },
  });
  const rounds: LicensingService[][] = [];
  try {
    const { leases, denied } = await client.checkout(['ItemA', 'ItemB']);
    for (const lease of leases) log(`checked out ${lease.item} from ${lease.servedBy}`);
    for (const item of denied) log(`denied ${item.item}`);
    const keeper = client.keepAlive(leases);
    for (
      let round = 1;
      !options.signal?.aborted && round <= (options.rounds ?? Infinity);
      round++
    ) {
      await pause(options.intervalMs ?? 3_000, options.signal);
      if (options.signal?.aborted) break;
      const servedBy: LicensingService[] = [];
      for (const lease of keeper.leases) {
        const renewed = await client.renew(lease);
        keeper.add(renewed);
        servedBy.push(renewed.servedBy);
        log(`renewed ${renewed.item} on ${renewed.servedBy}`);
      }
      rounds.push(servedBy);
      await options.afterRound?.(round, servedBy);
    }
  } finally {
    await client.close(); // releases the kept leases
  }
  return rounds;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  main({ signal: stop.signal }).then(
    () => console.log('released; bye'),
    (err: unknown) => {
      console.error(isLicensingError(err) ? `${err.code}: ${err.message}` : err);
      process.exitCode = 1;
    },
  );
}
