/**
 * quick-start.ts: the README's quick start, as a whole program.
 *
 * What it does:
 *   Creates a licensing client whose trust is the root certificates embedded in the app, checks
 *   out two items, hands the leases to the lease keeper, and then renews them every few seconds,
 *   printing which service served each renewal. Break the main service meanwhile (admin fault
 *   API or the QA console) and the renewals come from the standby; repair it and they come from
 *   main again. A renewal that fails (the standby refusing an ID token past its 24-hour grace, a
 *   standby switched off while main is down) is printed with its error code; the app keeps its
 *   current lease, which is still valid, and tries again at the next round, as a real app would.
 *
 * Needs:
 *   - The mock server, in another terminal, started once and left running:
 *       npm run -s mock-server -- --state active --admin --api-key dev-key --data-dir .walkthrough/data
 *     (--admin for the fault API and the QA console; --data-dir keeps the signing keys across a
 *     restart of the mock, so the roots embedded in step 1 below (the README walkthrough's
 *     step 3) stay valid.)
 *   - The two embedded roots in .walkthrough/roots/ (step 1 below; the README's step 3), written
 *     against THAT server.
 *
 * Steps:
 *   1. Embed the roots (the README walkthrough's step 3: once, at build time; .walkthrough/ is
 *      git-ignored). The standby's current key is read with an ID token from the mock's issuer;
 *      main's root from its JWK set:
 *        TOKEN=$(curl -s -X POST http://127.0.0.1:8787/idp/token -H 'Content-Type: application/json' \
 *          -d '{"sub":"dev"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).id_token')
 *        npm run -s standby-licensing -- embed-root --standby-url http://127.0.0.1:8787/standby \
 *          --id-token "$TOKEN" --out .walkthrough/roots/standby-root.ts
 *        npm run -s standby-licensing -- embed-root --jwks-url \
 *          http://127.0.0.1:8787/main/.well-known/jwks.json --out .walkthrough/roots/main-root.ts \
 *          --export-name mainRoot
 *   2. Run it: `npx tsx examples/quick-start.ts` (Ctrl-C stops it and releases the leases).
 *   3. In another terminal, break main, then repair it (or use the QA console's buttons,
 *      http://127.0.0.1:8787/admin/console):
 *        curl -X POST http://127.0.0.1:8787/admin/faults -H 'Content-Type: application/json' \
 *          -d '{"mode":"error","status":503}'
 *        curl -X DELETE http://127.0.0.1:8787/admin/faults
 *
 * Assumptions:
 *   - The ID token comes from the mock's built-in issuer; a real app signs its user in with its
 *     OIDC provider and returns that token from `auth.idToken`.
 *   - Renewing every few seconds, and probing main every 2-10 s while on the standby, is for the
 *     demo; a real app lets `keepAlive` renew at each lease's `refreshAt` (6 h into an 8 h lease)
 *     and keeps the default probe intervals.
 *   - Environment (optional): MAIN_URL, STANDBY_URL, IDP_URL (defaults: the mock on port 8787);
 *     ROOTS_DIR, where embed-root wrote standby-root.ts and main-root.ts (default
 *     .walkthrough/roots/, then examples/roots/ of older instructions).
 */

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createLicensingClient,
  isLicensingError,
  type Lease,
  type LicensingErrorCode,
  type LicensingService,
  type TrustedRoot,
} from '@standby-licensing/sdk';

/** Options of {@link main}; URLs default to their environment variables, then the local mock. */
export interface QuickStartOptions {
  mainUrl?: string;
  standbyUrl?: string;
  idpUrl?: string;
  /** The embedded roots. Default: the modules embed-root wrote into .walkthrough/roots/. */
  roots?: TrustedRoot[];
  /** Renewal rounds before closing. Default: until `signal` aborts. */
  rounds?: number;
  /** Pause between renewal rounds, in ms. Default 3000. */
  intervalMs?: number;
  /** Called after each round with what served (or refused) each renewal (lets a test break main). */
  afterRound?: (round: number, outcomes: RenewalOutcome[]) => Promise<void> | void;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/** One renewal of a round: the service that served it, or the error code that refused it. */
export type RenewalOutcome = LicensingService | LicensingErrorCode;

const env = (name: string, fallback: string) => process.env[name] ?? fallback;

/** Where embed-root wrote the roots: ROOTS_DIR, the walkthrough's folder, or the older one. */
function rootFolders(): URL[] {
  const dir = process.env.ROOTS_DIR;
  if (dir) return [pathToFileURL(`${resolve(dir)}/`)];
  return [new URL('../.walkthrough/roots/', import.meta.url), new URL('./roots/', import.meta.url)];
}

/** Loads the root modules that `standby-licensing embed-root` wrote. */
async function loadEmbeddedRoots(): Promise<TrustedRoot[]> {
  const causes: unknown[] = [];
  for (const base of rootFolders()) {
    try {
      const standby = await import(new URL('standby-root.ts', base).href);
      const main = await import(new URL('main-root.ts', base).href);
      return [standby.rootCertificate as TrustedRoot, main.mainRoot as TrustedRoot];
    } catch (cause) {
      causes.push(cause);
    }
  }
  throw new Error(
    'No embedded roots in .walkthrough/roots/ (or ROOTS_DIR): run the two embed-root commands in the header of examples/quick-start.ts first',
    { cause: new AggregateError(causes) },
  );
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

/** Waits `ms`, or less when `signal` aborts; leaves no listener behind on the signal. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

const hoursLeft = (lease: Lease) => ((lease.expiresAt - Date.now()) / 3_600_000).toFixed(1);

/** Runs the quick start; resolves with what served (or refused) each renewal of each round. */
export async function main(options: QuickStartOptions = {}): Promise<RenewalOutcome[][]> {
  const log = options.log ?? console.log;
  const idpUrl = options.idpUrl ?? env('IDP_URL', 'http://127.0.0.1:8787/idp');
  const client = createLicensingClient({
    mainUrl: options.mainUrl ?? env('MAIN_URL', 'http://127.0.0.1:8787/main'),
    standbyUrl: options.standbyUrl ?? env('STANDBY_URL', 'http://127.0.0.1:8787/standby'),
    auth: { idToken: () => signIn(idpUrl) },
    // Demo pace: while on the standby, look for main every 2 s, backing off to at most 10 s
    // (defaults: 30 s, up to 5 min), so main's repair shows within seconds.
    failover: {
      strategy: 'B',
      mainAttempts: 2,
      probeIntervalMs: 2_000,
      probeMaxIntervalMs: 10_000,
    },
    trust: { rootCertificates: options.roots ?? (await loadEmbeddedRoots()) },
    hardwareId: 'workstation-42',
    version: '1.0.0',
    on: {
      // The cause is main's error: its message says why (a stack trace per failover helps nobody).
      failover: (e) =>
        log(`  ! main failed: licensing moved to the standby (${(e.cause as Error).message})`),
      failback: (e) => log(`  ! back on main (${e.reason})`),
    },
  });
  const rounds: RenewalOutcome[][] = [];
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
      const outcomes: RenewalOutcome[] = [];
      for (const lease of keeper.leases) {
        try {
          const renewed = await client.renew(lease);
          keeper.add(renewed);
          outcomes.push(renewed.servedBy);
          log(`renewed ${renewed.item} on ${renewed.servedBy}`);
        } catch (error) {
          // A refusal or an outage of both services is not the end of the app: the lease it
          // holds is still valid until it expires. Report, keep it, try again next round.
          if (!isLicensingError(error)) throw error;
          outcomes.push(error.code);
          log(
            `renewal of ${lease.item} failed: ${error.code}: ${error.message}; keeping the current lease (valid ${hoursLeft(lease)} h more), retrying`,
          );
        }
      }
      rounds.push(outcomes);
      await options.afterRound?.(round, outcomes);
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
      if (isLicensingError(err) && err.code === 'TOKEN_INVALID') {
        console.error(
          'The embedded roots do not match the keys of the mock server that answered. A mock started without --data-dir makes new keys on every start: run the embed-root commands in the header of examples/quick-start.ts again against the running mock (or keep its keys with --data-dir).',
        );
      }
      if (isLicensingError(err) && err.code === 'SERVICE_UNAVAILABLE') {
        console.error(
          'Is the mock running? npm run -s mock-server -- --state active --admin --api-key dev-key --data-dir .walkthrough/data',
        );
      }
      process.exitCode = 1;
    },
  );
}
