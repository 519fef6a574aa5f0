/**
 * quit-releases-leases.ts: an app that gives its seats back when it quits.
 *
 * What it does:
 *   Starts the "app" as a child process (this file with `app`): it checks out ItemA and ItemB,
 *   keeps them, calls `releaseOnExit(client)` from `@standby-licensing/sdk/node` and prints
 *   `ready:`. The parent then ends it as a service manager or `kill` would, with SIGTERM, and
 *   reads the mock server's request log: the app's last request is the release of both leases,
 *   after which it ended by SIGTERM as it would have without the handlers. With `--finish`, the
 *   app instead finishes its work (nothing left to do, exit code 3): the release runs on
 *   `beforeExit` and the exit code stays 3. With `--no-release` the app omits `releaseOnExit`:
 *   no release reaches the mock, and the seats stay taken until the leases expire.
 *
 * Steps:
 *   1. Spawn `node --import tsx examples/quit-releases-leases.ts app`; wait for `ready:`.
 *   2. Note the request log's position (`GET /admin/requests`), send SIGTERM.
 *   3. Wait for the child to end; read the log after that position; print what arrived.
 *
 * Needs:
 *   - The mock server with the admin API (the request log): in another terminal,
 *       npm run -s mock-server -- --state active --admin --api-key dev-key --data-dir .walkthrough/data
 *   - The two embedded roots in .walkthrough/roots/ (or ROOTS_DIR), written against that server
 *     by the embed-root commands in the header of examples/quick-start.ts.
 *   - Run from the repo root: `npx tsx examples/quit-releases-leases.ts [--finish] [--no-release]`.
 *
 * Assumptions:
 *   - Environment (optional): MAIN_URL, STANDBY_URL, IDP_URL, ADMIN_URL (defaults
 *     http://127.0.0.1:8787/main, /standby, /idp, /admin), ROOTS_DIR.
 *   - A release request names lease ids only, while checkouts and renewals carry the device
 *     (`hw`): that is how the log, which shows no query strings, tells the release apart.
 *   - On Windows there is no SIGTERM to catch from outside; Ctrl-C (SIGINT) and `beforeExit`
 *     work the same way there.
 */

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLicensingClient, type TrustedRoot } from '@standby-licensing/sdk';
import { releaseOnExit } from '@standby-licensing/sdk/node';

const env = (name: string, fallback: string) => process.env[name] || fallback;
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** One entry of the mock server's request log (`GET /admin/requests`). */
export interface LoggedRequest {
  seq: number;
  service: string;
  method: string;
  route: string;
  status: number | null;
  hw?: string;
  caller?: string;
}

/** How the app ends: a SIGTERM from outside, or finishing its work (`beforeExit`). */
export type QuitMode = 'signal' | 'finish';

/** Options of {@link runQuitDrill}. */
export interface QuitDrillOptions {
  mainUrl?: string;
  standbyUrl?: string;
  idpUrl?: string;
  adminUrl?: string;
  /** Folder of the embed-root modules (ROOTS_DIR). */
  rootsDir?: string;
  mode?: QuitMode;
  /** Leave `releaseOnExit` out of the app (to see the seats stay taken). Default false. */
  noRelease?: boolean;
  log?: (line: string) => void;
}

/** What {@link runQuitDrill} saw. */
export interface QuitDrillReport {
  /** The app's `ready:` line. */
  ready: string;
  /** The child's exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it, or null. */
  signal: NodeJS.Signals | null;
  /** Every request the mock logged after the app was ready. */
  after: LoggedRequest[];
  /** Those that were releases (an `/authz/.jwt` without `hw`). */
  releases: LoggedRequest[];
}

async function loadEmbeddedRoots(dir: string | undefined): Promise<TrustedRoot[]> {
  const folders = dir
    ? [pathToFileURL(`${resolve(dir)}/`)]
    : [new URL('../.walkthrough/roots/', import.meta.url), new URL('./roots/', import.meta.url)];
  const causes: unknown[] = [];
  for (const folder of folders) {
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

/**
 * The app (the child process): checks out, keeps its leases, releases them when it ends. In
 * `signal` mode it runs until something ends it (its "UI loop" is a timer); in `finish` mode it
 * finishes at once with exit code 3, so Node's `beforeExit` comes.
 */
export async function app(mode: QuitMode, withRelease: boolean): Promise<void> {
  const idpUrl = env('IDP_URL', 'http://127.0.0.1:8787/idp');
  const client = createLicensingClient({
    mainUrl: env('MAIN_URL', 'http://127.0.0.1:8787/main'),
    standbyUrl: env('STANDBY_URL', 'http://127.0.0.1:8787/standby'),
    auth: {
      idToken: async () => {
        const response = await fetch(`${idpUrl}/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ sub: 'quitting-user' }),
        });
        return ((await response.json()) as { id_token: string }).id_token;
      },
    },
    trust: { rootCertificates: await loadEmbeddedRoots(process.env.ROOTS_DIR) },
    hardwareId: 'quitting-workstation',
  });
  // The one line this example is about: seats come back on SIGINT, SIGTERM and beforeExit.
  if (withRelease) releaseOnExit(client, { timeoutMs: 2_000 });
  const { leases } = await client.checkout(['ItemA', 'ItemB']);
  client.keepAlive(leases);
  console.log(`ready: holding ${leases.map((l) => `${l.item} (${l.leaseId})`).join(', ')}`);
  if (mode === 'signal') {
    setInterval(() => {}, 60_000);
  } else {
    process.exitCode = 3;
  }
}

async function requestLog(adminUrl: string, after: number) {
  const response = await fetch(`${adminUrl}/requests?after=${after}`);
  if (!response.ok) {
    throw new Error(
      `GET ${adminUrl}/requests answered ${response.status}: start the mock with --admin`,
    );
  }
  return (await response.json()) as { entries: LoggedRequest[]; lastSeq: number };
}

/** Runs the app as a child process, ends it, and reads what reached the mock server. */
export async function runQuitDrill(options: QuitDrillOptions = {}): Promise<QuitDrillReport> {
  const log = options.log ?? console.log;
  const mode = options.mode ?? 'signal';
  const mainUrl = options.mainUrl ?? env('MAIN_URL', 'http://127.0.0.1:8787/main');
  const adminUrl = options.adminUrl ?? env('ADMIN_URL', mainUrl.replace(/\/main$/, '/admin'));
  const childEnv: NodeJS.ProcessEnv = { ...process.env, MAIN_URL: mainUrl };
  if (options.standbyUrl) childEnv.STANDBY_URL = options.standbyUrl;
  if (options.idpUrl) childEnv.IDP_URL = options.idpUrl;
  if (options.rootsDir) childEnv.ROOTS_DIR = resolve(options.rootsDir);
  const args = ['app', ...(mode === 'finish' ? ['--finish'] : [])];
  if (options.noRelease) args.push('--no-release');

  // The log's position before the app starts; once it is ready (its checkout done), the position
  // then, so that what follows is only what the app sent on its way out.
  let mark = (await requestLog(adminUrl, 0)).lastSeq;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), ...args],
    { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('close', (code, signal) => done({ code, signal })),
  );
  const ready = await new Promise<string>((done, fail) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((l) => l.startsWith('ready:'));
      if (line && mode === 'signal') {
        requestLog(adminUrl, 0).then(({ lastSeq }) => {
          mark = lastSeq;
          done(line);
        }, fail);
      } else if (line) done(line);
    });
    void ended.then(({ code, signal }) => {
      fail(new Error(`the app ended (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
  log(`app: ${ready}`);
  if (mode === 'signal') {
    log('sending SIGTERM to the app');
    child.kill('SIGTERM');
  }
  const { code, signal } = await ended;
  log(`app ended: ${signal ? `by ${signal}` : `exit code ${code}`}`);
  // In finish mode the app ends on its own: its checkout (with hw) is in the log too.
  const after = (await requestLog(adminUrl, mark)).entries.filter(
    (entry) => entry.service === 'main' || entry.service === 'standby',
  );
  const releases = after.filter(
    (entry) => entry.route === '/authz/.jwt' && entry.method === 'GET' && entry.hw === undefined,
  );
  for (const entry of after) {
    const what = entry === releases.find((r) => r === entry) ? 'release' : 'request';
    log(`  mock log: ${what} ${entry.method} ${entry.service} ${entry.route} -> ${entry.status}`);
  }
  if (releases.length === 0) log('  no release reached the mock: the seats stay taken');
  return { ready, code, signal, after, releases };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const argv = process.argv.slice(2);
  const mode: QuitMode = argv.includes('--finish') ? 'finish' : 'signal';
  const withRelease = !argv.includes('--no-release');
  if (argv[0] === 'app') {
    app(mode, withRelease).catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
  } else {
    runQuitDrill({ mode, noRelease: !withRelease }).then(
      (report) => {
        process.exitCode = withRelease === report.releases.length > 0 ? 0 : 1;
      },
      (error: unknown) => {
        console.error(error);
        process.exitCode = 1;
      },
    );
  }
}
