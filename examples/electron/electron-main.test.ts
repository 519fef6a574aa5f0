// The Electron-shaped example's main-process module under plain Node, against the mock server:
// the stores land in the user-data folder (owner-only files), the leases are bound to
// machineId({ appId }), windows get the status over IPC without any token, every change is
// broadcast, a restart with the services unreachable gets the leases back from the user-data
// folder, and quitting releases them. (Electron itself cannot be installed here: its package
// downloads a binary at install time. `ipcMain` is a stand-in with Electron's `handle`.)
import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  closedPort,
  type MockLicensing,
  mintIdToken,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHANGED_CHANNEL,
  type IpcMainLike,
  STATUS_CHANNEL,
  startLicensing,
} from './licensing-main.js';
import type { RendererStatus } from './renderer-status.js';

const APP_ID = 'com.example.licensed-app';
let mock: MockLicensing;
let userData: string;

beforeAll(async () => {
  mock = await startMockLicensing();
  userData = await mkdtemp(join(tmpdir(), 'electron-user-data-'));
});
afterAll(async () => {
  await mock.close();
  await rm(userData, { recursive: true, force: true });
});

/** Electron's ipcMain as far as the module uses it: `handle`, `removeHandler`, and `invoke`. */
function fakeIpcMain() {
  const handlers = new Map<string, (event: unknown) => unknown>();
  const ipcMain: IpcMainLike & { invoke(channel: string): Promise<unknown> } = {
    handle: (channel, listener) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, listener);
    },
    removeHandler: (channel) => void handlers.delete(channel),
    // What Electron does for ipcRenderer.invoke: call the handler, structured-clone the result.
    invoke: async (channel) => {
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      return structuredClone(await handler({ sender: 'window-1' }));
    },
  };
  return { ipcMain, handlers };
}

function options(ipcMain: IpcMainLike, sent: Array<[string, RendererStatus]>) {
  return {
    userData,
    appId: APP_ID,
    mainUrl: mock.server.info.mainUrl,
    standbyUrl: mock.server.info.standbyUrl,
    roots: [mock.standbyRoot, { pem: mock.mainRootPem }],
    idToken: () => mintIdToken(mock.server, 'electron-user'),
    items: ['ItemA', 'ItemB'],
    ipcMain,
    broadcast: (channel: string, status: RendererStatus) =>
      sent.push([channel, structuredClone(status)]),
  };
}

describe('examples/electron/licensing-main.ts under plain Node', () => {
  it('keeps the stores in userData, binds leases to machineId, and tells windows no token', async () => {
    const saved = process.env.STANDBY_LICENSING_HARDWARE_ID;
    delete process.env.STANDBY_LICENSING_HARDWARE_ID;
    const { ipcMain, handlers } = fakeIpcMain();
    const sent: Array<[string, RendererStatus]> = [];
    const licensing = await startLicensing(options(ipcMain, sent));
    try {
      // The hardware id: the HMAC of this machine's id keyed by the app id, never the raw id.
      const raw = (await readFile('/etc/machine-id', 'utf8')).trim();
      expect(licensing.hardwareId).toBe(createHmac('sha256', APP_ID).update(raw).digest('hex'));
      const { leases } = licensing.client.status();
      expect(leases.map((l) => [l.item, l.servedBy, l.claims.hw])).toEqual([
        ['ItemA', 'main', licensing.hardwareId],
        ['ItemB', 'main', licensing.hardwareId],
      ]);

      // The stores, in the user-data folder, owner-only.
      expect(licensing.paths.leases).toBe(join(userData, 'licensing', 'leases.json'));
      for (const path of [licensing.paths.leases, licensing.paths.idToken]) {
        expect((await stat(path)).mode & 0o777).toBe(0o600);
      }
      const stored = JSON.parse(await readFile(licensing.paths.leases, 'utf8')) as {
        leases: Array<{ item: string }>;
      };
      expect(stored.leases.map((l) => l.item)).toEqual(['ItemA', 'ItemB']);

      // What a window gets: the state, no token, no lease id, no claim; the raw id nowhere.
      const status = (await ipcMain.invoke(STATUS_CHANNEL)) as RendererStatus;
      expect(status).toEqual({
        activeService: 'main',
        online: true,
        items: leases.map((l) => ({ item: l.item, servedBy: 'main', expiresAt: l.expiresAt })),
      });
      const crossing = JSON.stringify([status, ...sent]);
      for (const lease of leases) {
        expect(crossing).not.toContain(lease.token);
        expect(crossing).not.toContain(lease.leaseId);
        expect(crossing).not.toContain(lease.licenseId);
      }
      expect(crossing).not.toMatch(/eyJ/);
      expect(crossing).not.toContain(raw);
      // Every change reached the windows; the last one is the current state.
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.every(([channel]) => channel === CHANGED_CHANNEL)).toBe(true);
      expect(sent.at(-1)![1]).toEqual(status);

      // A restart with both services unreachable: the leases come back from userData.
      const port = await closedPort();
      const second = fakeIpcMain();
      const offline = await startLicensing({
        ...options(second.ipcMain, []),
        mainUrl: `http://127.0.0.1:${port}/main`,
        standbyUrl: `http://127.0.0.1:${port}/standby`,
      });
      const restored = (await second.ipcMain.invoke(STATUS_CHANNEL)) as RendererStatus;
      expect(restored.items.map((i) => i.item)).toEqual(['ItemA', 'ItemB']);
      expect(offline.client.has('ItemA')).toBe(true);
      await offline.client.close();

      // Quitting releases both leases and stops answering windows.
      await licensing.stop();
      expect(handlers.has(STATUS_CHANNEL)).toBe(false);
      expect(licensing.client.status().leases).toEqual([]);
      const after = JSON.parse(await readFile(licensing.paths.leases, 'utf8')) as {
        leases: unknown[];
      };
      expect(after.leases).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.STANDBY_LICENSING_HARDWARE_ID;
      else process.env.STANDBY_LICENSING_HARDWARE_ID = saved;
      await licensing.client.close();
    }
  });

  it('in a container or a cloned image, STANDBY_LICENSING_HARDWARE_ID is the hardware id', async () => {
    const saved = process.env.STANDBY_LICENSING_HARDWARE_ID;
    process.env.STANDBY_LICENSING_HARDWARE_ID = 'vdi-pool-7-seat-12';
    const { ipcMain } = fakeIpcMain();
    const dir = await mkdtemp(join(tmpdir(), 'electron-user-data-'));
    try {
      const licensing = await startLicensing({ ...options(ipcMain, []), userData: dir });
      expect(licensing.hardwareId).toBe('vdi-pool-7-seat-12');
      expect(licensing.client.status().leases[0]!.claims.hw).toBe('vdi-pool-7-seat-12');
      await licensing.stop();
    } finally {
      if (saved === undefined) delete process.env.STANDBY_LICENSING_HARDWARE_ID;
      else process.env.STANDBY_LICENSING_HARDWARE_ID = saved;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
