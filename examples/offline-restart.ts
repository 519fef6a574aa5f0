/**
 * offline-restart.ts: a desktop app restarted during a total outage keeps its leases.
 *
 * What it does:
 *   Checks out ItemA and ItemB and keeps them in a file lease store (the app's data folder). Then
 *   the app "restarts" with no network at all: a new process whose every request fails, as with
 *   the cable pulled. `client.restore()` reads the leases back, verifies each again against the
 *   saved JWK sets and the embedded roots, and prints how long each stays valid, without a single
 *   request. Last, the app restarts with its clock set back 2 hours, as when a user sets the clock
 *   back to stretch a lease: refused with CLOCK_ROLLBACK.
 *
 * Needs:
 *   - The mock server, in another terminal (the walkthrough's, started with --data-dir, will do):
 *       npm run -s mock-server -- --state active --admin --api-key dev-key --data-dir .walkthrough/data
 *   - The two embedded roots in .walkthrough/roots/ (or ROOTS_DIR), written against THAT server
 *     by the two embed-root commands in the header of examples/quick-start.ts.
 *
 * Steps, all run by one command, `npx tsx examples/offline-restart.ts`:
 *   1. `checkout` (this process): two leases from the running mock, saved in a fresh lease store.
 *   2. `restore --offline` (a new process, no network): the two leases, restored offline.
 *   3. `restore --offline --clock-back 2` (a new process, clock 2 h back): CLOCK_ROLLBACK.
 *   Each step also runs alone, e.g. `npx tsx examples/offline-restart.ts restore`, to restore
 *   after stopping the mock server yourself (Ctrl-C in its terminal): nothing answers then, and
 *   `--offline` is not needed.
 *
 * Assumptions:
 *   - The store file is `.walkthrough/offline-restart/licensing.json` (STORE_PATH overrides it;
 *     git-ignored); a real app keeps it in its user-data folder (Electron:
 *     `app.getPath('userData')`).
 *   - Environment (optional): MAIN_URL, STANDBY_URL, IDP_URL (defaults: the mock on port 8787),
 *     ROOTS_DIR (where embed-root wrote standby-root.ts and main-root.ts).
 */

import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createLicensingClient,
  isLicensingError,
  type Lease,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';

/** Options of {@link main}. */
export interface OfflineRestartOptions {
  step: 'checkout' | 'restore';
  /** Where the leases are kept. Default: STORE_PATH, then .walkthrough/offline-restart/licensing.json. */
  storePath?: string;
  /** Restore with the clock set back this many ms. Default 0. */
  clockBackMs?: number;
  /** Every request fails at once, as with no network at all (the restart steps). Default false. */
  offline?: boolean;
  mainUrl?: string;
  standbyUrl?: string;
  idpUrl?: string;
  /** The embedded roots. Default: the modules embed-root wrote into `rootsDir`. */
  roots?: TrustedRoot[];
  /** Folder of the embed-root modules. Default: ROOTS_DIR, then .walkthrough/roots/. */
  rootsDir?: string;
  log?: (line: string) => void;
}

const env = (name: string, fallback: string) => process.env[name] || fallback;
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const defaultStorePath = () =>
  env('STORE_PATH', join('.walkthrough', 'offline-restart', 'licensing.json'));

/** Where embed-root wrote the roots: `dir`, the walkthrough's folder, or the older one. */
function rootFolders(dir: string | undefined): URL[] {
  if (dir) return [pathToFileURL(`${resolve(dir)}/`)];
  return [new URL('../.walkthrough/roots/', import.meta.url), new URL('./roots/', import.meta.url)];
}

async function loadEmbeddedRoots(dir: string | undefined): Promise<TrustedRoot[]> {
  const causes: unknown[] = [];
  for (const folder of rootFolders(dir)) {
    try {
      const standby = await import(new URL('standby-root.ts', folder).href);
      const main = await import(new URL('main-root.ts', folder).href);
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

async function signIn(idpUrl: string): Promise<string> {
  const res = await fetch(`${idpUrl}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub: 'offline-restart-user' }),
  });
  if (!res.ok) throw new Error(`sign-in failed: HTTP ${res.status}`);
  return ((await res.json()) as { id_token: string }).id_token;
}

/** A `fetch` for a machine with no network: every request fails, and is counted. */
function noNetwork(): { fetch: typeof fetch; attempts: () => number } {
  let attempts = 0;
  return {
    fetch: async () => {
      attempts++;
      throw new TypeError('fetch failed', { cause: { code: 'ENETUNREACH' } });
    },
    attempts: () => attempts,
  };
}

/** Runs one step; resolves with the leases it checked out or restored. */
export async function main(options: OfflineRestartOptions): Promise<Lease[]> {
  const log = options.log ?? console.log;
  const idpUrl = options.idpUrl ?? env('IDP_URL', 'http://127.0.0.1:8787/idp');
  const storePath = options.storePath ?? defaultStorePath();
  const clockBackMs = options.clockBackMs ?? 0;
  const network = options.offline ? noNetwork() : undefined;
  const client = createLicensingClient({
    mainUrl: options.mainUrl ?? env('MAIN_URL', 'http://127.0.0.1:8787/main'),
    standbyUrl: options.standbyUrl ?? env('STANDBY_URL', 'http://127.0.0.1:8787/standby'),
    auth: { idToken: () => signIn(idpUrl) },
    trust: {
      rootCertificates:
        options.roots ?? (await loadEmbeddedRoots(options.rootsDir ?? process.env.ROOTS_DIR)),
    },
    leaseStore: createFileLeaseStore(storePath),
    now: () => Date.now() - clockBackMs,
    hardwareId: 'workstation-42',
    ...(network ? { fetch: network.fetch } : {}),
  });
  try {
    if (options.step === 'checkout') {
      const { leases } = await client.checkout(['ItemA', 'ItemB']);
      for (const lease of leases) log(`checked out ${lease.item} from ${lease.servedBy}`);
      log(`saved in ${storePath}`);
      return leases;
    }
    const { leases } = await client.restore();
    for (const lease of leases) {
      const hours = ((lease.expiresAt - Date.now()) / 3_600_000).toFixed(1);
      log(
        `restored ${lease.item} (lease ${lease.leaseId}, from ${lease.servedBy}), valid ${hours} h more`,
      );
    }
    if (leases.length === 0) log('no valid lease in the store: run the checkout step first');
    return leases;
  } catch (error) {
    if (isLicensingError(error) && error.code === 'CLOCK_ROLLBACK') {
      log(`refused: ${error.code} (${error.message})`);
    }
    throw error;
  } finally {
    if (network) log(`network off: ${network.attempts()} requests attempted`);
    // No release: the app keeps its leases across the restart.
    await client.close();
  }
}

/** Options of {@link runAll}: the URLs and the store, handed to every step. */
export interface RunAllOptions {
  mainUrl?: string;
  standbyUrl?: string;
  idpUrl?: string;
  storePath?: string;
  /** Folder of the embed-root modules (ROOTS_DIR). */
  rootsDir?: string;
  log?: (line: string) => void;
}

/** What {@link runAll} saw: the leases checked out, and each restart's output and exit code. */
export interface RunAllReport {
  checkedOut: Lease[];
  restart: { code: number | null; output: string };
  clockBack: { code: number | null; output: string };
}

/**
 * The whole scenario in one call: the checkout here, then each restart as a new process
 * (`node --import tsx` on this file, from the repository root), so nothing of this process's
 * memory survives into it, only the store file.
 */
export async function runAll(options: RunAllOptions = {}): Promise<RunAllReport> {
  const log = options.log ?? console.log;
  const storePath = resolve(options.storePath ?? defaultStorePath());
  const childEnv: NodeJS.ProcessEnv = { ...process.env, STORE_PATH: storePath };
  if (options.mainUrl) childEnv.MAIN_URL = options.mainUrl;
  if (options.standbyUrl) childEnv.STANDBY_URL = options.standbyUrl;
  if (options.idpUrl) childEnv.IDP_URL = options.idpUrl;
  if (options.rootsDir) childEnv.ROOTS_DIR = resolve(options.rootsDir);
  const child = (args: string[]) =>
    new Promise<{ code: number | null; output: string }>((done, fail) => {
      const proc = spawn(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(import.meta.url), ...args],
        { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      const take = (chunk: Buffer) => {
        output += chunk.toString();
      };
      proc.stdout.on('data', take);
      proc.stderr.on('data', take);
      proc.on('error', fail);
      proc.on('close', (code) => {
        for (const line of output.trimEnd().split('\n')) log(`  ${line}`);
        done({ code, output });
      });
    });

  // A fresh store, so the restarts show just this run's leases (a real app keeps its store).
  await rm(storePath, { force: true });
  log('1/3 checkout, with the mock server running:');
  const checkedOut = await main({
    step: 'checkout',
    storePath,
    ...(options.mainUrl ? { mainUrl: options.mainUrl } : {}),
    ...(options.standbyUrl ? { standbyUrl: options.standbyUrl } : {}),
    ...(options.idpUrl ? { idpUrl: options.idpUrl } : {}),
    ...(options.rootsDir ? { rootsDir: options.rootsDir } : {}),
    log: (line) => log(`  ${line}`),
  });
  log('2/3 the app restarts with no network (a new process; every request fails):');
  const restart = await child(['restore', '--offline']);
  log('3/3 the app restarts with its clock set back 2 hours (no network):');
  const clockBack = await child(['restore', '--offline', '--clock-back', '2']);
  return { checkedOut, restart, clockBack };
}

const USAGE = 'usage: offline-restart.ts [checkout | restore [--offline] [--clock-back <hours>]]';

/** The command line: no argument runs every step; `checkout` or `restore` runs one. */
async function cli(argv: string[]): Promise<number> {
  const [step, ...rest] = argv;
  if (step === undefined) {
    const { checkedOut, restart, clockBack } = await runAll();
    const restored = checkedOut.every((lease) => restart.output.includes(`lease ${lease.leaseId}`));
    const refused = clockBack.code !== 0 && clockBack.output.includes('refused: CLOCK_ROLLBACK');
    const ok = restart.code === 0 && restored && refused;
    console.log(
      ok
        ? 'done: both leases came back offline, and a clock set back was refused'
        : 'UNEXPECTED: see the output of the steps above',
    );
    return ok ? 0 : 1;
  }
  if (step !== 'checkout' && step !== 'restore') {
    console.error(USAGE);
    return 2;
  }
  let clockBackMs = 0;
  let offline = false;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--offline') offline = true;
    else if (rest[i] === '--clock-back' && Number.isFinite(Number(rest[i + 1]))) {
      clockBackMs = Number(rest[++i]) * 3_600_000;
    } else {
      console.error(USAGE);
      return 2;
    }
  }
  try {
    await main({ step, clockBackMs, offline });
    if (step === 'checkout') {
      console.log(
        'next: stop the mock server, then run `npx tsx examples/offline-restart.ts restore`',
      );
    }
    return 0;
  } catch (error) {
    // The refusal was printed as the step's last line; anything else gets the hints below.
    if (isLicensingError(error) && error.code === 'CLOCK_ROLLBACK') return 1;
    throw error;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  cli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(isLicensingError(error) ? `${error.code}: ${error.message}` : error);
      if (isLicensingError(error) && error.code === 'TOKEN_INVALID') {
        console.error(
          'The embedded roots do not match the keys of the mock server that answered: run the embed-root commands in the header of examples/quick-start.ts again against the running mock (a mock started without --data-dir makes new keys on every start).',
        );
      }
      if (isLicensingError(error) && error.code === 'SERVICE_UNAVAILABLE') {
        console.error(
          'Is the mock running? npm run -s mock-server -- --state active --admin --api-key dev-key --data-dir .walkthrough/data',
        );
      }
      process.exitCode = 1;
    },
  );
}
