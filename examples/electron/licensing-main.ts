/**
 * licensing-main.ts: licensing in an Electron app's main process (the Electron-shaped example).
 *
 * What it does:
 *   Keeps the app's licenses in the main process, where Node runs: the lease store and the last
 *   good ID token in files under the app's user-data folder (`createFileLeaseStore`,
 *   `createFileIdTokenStore`), the device's id from `machineId({ appId })`, the leases restored
 *   at start (no network needed) or checked out, kept renewed, and released when the app quits.
 *   Windows learn the license state over IPC (`licensing:status`, and `licensing:changed` on
 *   every change) without ever seeing a token (renderer-status.ts); preload.ts exposes it to them.
 *
 * Steps:
 *   1. `hardwareId = await machineId({ appId })`; stores in `<userData>/licensing/`.
 *   2. `createLicensingClient(...)`; `client.restore()`, then `client.checkout()` of what is missing;
 *      `client.keepAlive(leases)`.
 *   3. `ipcMain.handle('licensing:status', ...)`; `client.subscribe(...)` sends each change to
 *      every window.
 *   4. On quit: `stop()` releases every lease (`client.close({ release: true })`).
 *
 * In Electron (main.js), with `app`, `ipcMain` and `BrowserWindow` from 'electron':
 *
 *   const licensing = await startLicensing({
 *     userData: app.getPath('userData'), appId: 'com.example.app', ipcMain,
 *     broadcast: (channel, status) =>
 *       BrowserWindow.getAllWindows().forEach((w) => w.webContents.send(channel, status)),
 *     mainUrl, standbyUrl, roots, idToken: () => signIn(), items: ['ItemA'],
 *   });
 *   let quitting = false;
 *   app.on('before-quit', (event) => {
 *     if (quitting) return;
 *     event.preventDefault(); quitting = true;
 *     licensing.stop().finally(() => app.quit()); // at most 2 s
 *   });
 *
 * Needs:
 *   - Node (Electron's main process is Node). Electron itself is not needed to run this module:
 *     `ipcMain` and `broadcast` are parameters. examples/electron/electron-main.test.ts runs it
 *     under plain Node against the mock server; test/browser/electron-renderer.test.ts runs the
 *     preload bridge and a renderer in Chromium against it.
 *
 * Assumptions:
 *   - `roots` come from `npx standby-licensing embed-root --out src/licensing/standby-root.cjs`
 *     (CommonJS for an Electron main process, or `.js` for ES modules).
 *   - Without `seal`/`unseal` the lease file is as trustworthy as its permissions (0600); in
 *     Electron, pass `safeStorage.encryptString`/`decryptString` as the seal (docs/trust-model.md).
 */
import { join } from 'node:path';
import {
  createLicensingClient,
  type FailoverOptions,
  type LeaseKeeperOptions,
  type LicensingClient,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import {
  createFileIdTokenStore,
  createFileLeaseStore,
  machineId,
} from '@standby-licensing/sdk/node';
import { type RendererStatus, toRendererStatus } from './renderer-status.js';

/** The IPC channel a window asks the status on. */
export const STATUS_CHANNEL = 'licensing:status';
/** The IPC channel the main process sends each change on. */
export const CHANGED_CHANNEL = 'licensing:changed';

/** The part of Electron's `ipcMain` used here. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: unknown) => unknown): void;
  removeHandler(channel: string): void;
}

/** Options of {@link startLicensing}. */
export interface LicensingMainOptions {
  /** `app.getPath('userData')`: the stores go to `<userData>/licensing/`. */
  userData: string;
  /** The app's own id, e.g. its bundle id: keys the hardware id (`machineId`). */
  appId: string;
  mainUrl: string;
  standbyUrl: string;
  roots: TrustedRoot[];
  /** The signed-in user's ID token (your OIDC flow, e.g. system browser + loopback redirect). */
  idToken: () => Promise<string>;
  items: string[];
  ipcMain: IpcMainLike;
  /** Sends `status` on `channel` to every window. */
  broadcast: (channel: string, status: RendererStatus) => void;
  failover?: FailoverOptions;
  keeper?: LeaseKeeperOptions;
}

/** The running licensing of the app. */
export interface LicensingMain {
  client: LicensingClient;
  /** Where the stores are. */
  paths: { leases: string; idToken: string };
  /** The hardware id the leases are bound to. */
  hardwareId: string;
  /** Releases every lease (at most 2 s) and stops answering windows. */
  stop(): Promise<void>;
}

/** Starts the app's licensing in the main process. */
export async function startLicensing(options: LicensingMainOptions): Promise<LicensingMain> {
  const folder = join(options.userData, 'licensing');
  const paths = { leases: join(folder, 'leases.json'), idToken: join(folder, 'id-token.json') };
  const hardwareId = await machineId({ appId: options.appId });
  const client = createLicensingClient({
    mainUrl: options.mainUrl,
    standbyUrl: options.standbyUrl,
    auth: { idToken: options.idToken, store: createFileIdTokenStore(paths.idToken) },
    trust: { rootCertificates: options.roots },
    hardwareId,
    leaseStore: createFileLeaseStore(paths.leases),
    ...(options.failover ? { failover: options.failover } : {}),
  });

  const { ipcMain, broadcast } = options;
  ipcMain.handle(STATUS_CHANNEL, () => toRendererStatus(client.status()));
  const unsubscribe = client.subscribe(() =>
    broadcast(CHANGED_CHANNEL, toRendererStatus(client.status())),
  );

  // The leases the last run left, verified offline; a checkout of what is missing.
  let { leases } = await client.restore().catch(() => ({ leases: [] as never[] }));
  const missing = options.items.filter((item) => !leases.some((lease) => lease.item === item));
  if (missing.length > 0) {
    const checkedOut = await client.checkout(missing).catch(() => ({ leases: [] as never[] }));
    leases = [...leases, ...checkedOut.leases];
  }
  client.keepAlive(leases, options.keeper);

  return {
    client,
    paths,
    hardwareId,
    async stop() {
      unsubscribe();
      ipcMain.removeHandler(STATUS_CHANNEL);
      await client.close({ release: true, timeoutMs: 2_000 });
    },
  };
}
