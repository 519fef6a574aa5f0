/**
 * offline-restart.ts: a desktop app restarted during a total outage keeps its leases.
 *
 * What it does:
 *   `checkout` checks out ItemA and ItemB and keeps them in a file lease store (the app's data
 *   folder). `restore` is the app starting again with no network at all: `client.restore()` reads
 *   the leases back, verifies each again against the saved JWK sets and the embedded roots, and
 *   prints how long each stays valid. With `--clock-back <hours>` the clock reads earlier than a
 *   lease already vouched for, as when a user sets the clock back to stretch a lease: refused with
 *   CLOCK_ROLLBACK.
 *
 * Steps:
 *   1. Embed the roots once, as in examples/quick-start.ts (its header has the two commands).
 *   2. With the mock server running: `npx tsx examples/offline-restart.ts checkout`
 *   3. Stop the mock server (Ctrl-C in its terminal): nothing answers any more.
 *   4. `npx tsx examples/offline-restart.ts restore` prints the two leases, restored offline.
 *   5. `npx tsx examples/offline-restart.ts restore --clock-back 2` is refused (CLOCK_ROLLBACK).
 *
 * Assumptions:
 *   - `npm run mock-server -- --state active --admin --api-key dev-key` for step 2.
 *   - The store file is `.data/offline-restart/licensing.json` (STORE_PATH overrides it); a real
 *     app keeps it in its user-data folder (Electron: `app.getPath('userData')`).
 *   - Environment (optional): MAIN_URL, STANDBY_URL, IDP_URL (defaults: the mock on port 8787).
 */

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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
  /** Where the leases are kept. Default: STORE_PATH, then .data/offline-restart/licensing.json. */
  storePath?: string;
  /** Restore with the clock set back this many ms. Default 0. */
  clockBackMs?: number;
  mainUrl?: string;
  standbyUrl?: string;
  idpUrl?: string;
  /** The embedded roots. Default: the modules in examples/roots/ written by embed-root. */
  roots?: TrustedRoot[];
  log?: (line: string) => void;
}

const env = (name: string, fallback: string) => process.env[name] ?? fallback;

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

async function signIn(idpUrl: string): Promise<string> {
  const res = await fetch(`${idpUrl}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub: 'offline-restart-user' }),
  });
  if (!res.ok) throw new Error(`sign-in failed: HTTP ${res.status}`);
  return ((await res.json()) as { id_token: string }).id_token;
}

/** Runs one step; resolves with the leases it checked out or restored. */
export async function main(options: OfflineRestartOptions): Promise<Lease[]> {
  const log = options.log ?? console.log;
  const idpUrl = options.idpUrl ?? env('IDP_URL', 'http://127.0.0.1:8787/idp');
  const storePath =
    options.storePath ?? env('STORE_PATH', join('.data', 'offline-restart', 'licensing.json'));
  const clockBackMs = options.clockBackMs ?? 0;
  const client = createLicensingClient({
    mainUrl: options.mainUrl ?? env('MAIN_URL', 'http://127.0.0.1:8787/main'),
    standbyUrl: options.standbyUrl ?? env('STANDBY_URL', 'http://127.0.0.1:8787/standby'),
    auth: { idToken: () => signIn(idpUrl) },
    trust: { rootCertificates: options.roots ?? (await loadEmbeddedRoots()) },
    leaseStore: createFileLeaseStore(storePath),
    now: () => Date.now() - clockBackMs,
    hardwareId: 'workstation-42',
  });
  try {
    if (options.step === 'checkout') {
      const { leases } = await client.checkout(['ItemA', 'ItemB']);
      for (const lease of leases) log(`checked out ${lease.item} from ${lease.servedBy}`);
      log(`saved in ${storePath}: stop the mock server, then run the restore step`);
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
    // No release: the app keeps its leases across the restart.
    await client.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [step, flag, value] = process.argv.slice(2);
  if (step !== 'checkout' && step !== 'restore') {
    console.error('usage: offline-restart.ts checkout | restore [--clock-back <hours>]');
    process.exit(2);
  }
  const clockBackMs = flag === '--clock-back' ? Number(value) * 3_600_000 : 0;
  main({ step, clockBackMs }).catch((error: unknown) => {
    if (!(isLicensingError(error) && error.code === 'CLOCK_ROLLBACK')) console.error(error);
    process.exitCode = 1;
  });
}
