// The Electron-shaped example as far as Electron can run here (its npm package downloads a
// binary at install time, which this project may not do): the main-process module
// (examples/electron/licensing-main.ts) runs in this Node process against the mock server, with
// its stores in a temporary user-data folder; the preload bridge and the renderer run in
// Chromium, bundled from the built SDK, with stand-ins for Electron's `contextBridge` and
// `ipcRenderer` wired to the main module (invoke → its `ipcMain.handle`, its broadcast →
// `webContents.send`). Through a main outage the window shows the standby, then main again;
// nothing that crosses to the window holds a token, a lease id or a license id.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type IpcMainLike,
  type LicensingMain,
  startLicensing,
} from '../../examples/electron/licensing-main.js';
import type { RendererStatus } from '../../examples/electron/renderer-status.js';
import { chromiumEndpoint } from '../helpers/browser/connect-browser.js';
import { type PageFixture, startPageFixture } from '../helpers/browser/page-fixture.js';
import {
  clearFaults,
  type MockLicensing,
  mintIdToken,
  setMainFault,
  startMockLicensing,
} from '../helpers/mock-licensing.js';
import type { RendererShown } from './pages/electron-renderer.js';

describe.skipIf(chromiumEndpoint() === null)(
  'the Electron-shaped example: main in Node, window in Chromium',
  () => {
    let mock: MockLicensing;
    let fixture: PageFixture;
    let userData: string;
    let page: Page | undefined;
    const handlers = new Map<string, (event: unknown) => unknown>();
    const ipcMain: IpcMainLike = {
      handle: (channel, listener) => void handlers.set(channel, listener),
      removeHandler: (channel) => void handlers.delete(channel),
    };

    beforeAll(async () => {
      [mock, fixture, userData] = await Promise.all([
        startMockLicensing(),
        startPageFixture(new URL('./pages/electron-renderer.ts', import.meta.url), 'rendererApp'),
        mkdtemp(join(tmpdir(), 'electron-user-data-')),
      ]);
      // ipcRenderer.invoke in the window → ipcMain.handle in the main process.
      await fixture.session.context.exposeBinding('electronIpcInvoke', async (_source, channel) => {
        const handler = handlers.get(channel as string);
        if (!handler) throw new Error(`No handler registered for '${String(channel)}'`);
        return structuredClone(await handler({ sender: 'window' }));
      });
    });

    afterAll(async () => {
      await fixture?.close();
      await mock?.close();
      await rm(userData, { recursive: true, force: true });
    });

    const waitShown = async (check: (state: RendererShown) => boolean, what: string) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const state = await page!.evaluate(() => window.rendererApp.now());
        if (check(state)) return state;
        if (Date.now() > deadline)
          throw new Error(`never showed ${what}: ${JSON.stringify(state)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    it('shows the license over the bridge through an outage, and never sees a token', async () => {
      expect(fixture.bundle.inputs).toContain('examples/electron/preload.ts');
      expect(fixture.bundle.inputs).toContain('examples/electron/renderer.ts');
      page = await fixture.open();
      const licensing: LicensingMain = await startLicensing({
        userData,
        appId: 'com.example.licensed-app',
        mainUrl: mock.server.info.mainUrl,
        standbyUrl: mock.server.info.standbyUrl,
        roots: [mock.standbyRoot, { pem: mock.mainRootPem }],
        idToken: () => mintIdToken(mock.server, 'electron-user'),
        items: ['ItemA'],
        ipcMain,
        // webContents.send to the one window.
        broadcast: (channel, status: RendererStatus) =>
          void page
            ?.evaluate(([c, s]) => window.electronShim.deliver(c, s), [channel, status] as const)
            .catch(() => undefined),
        failover: {
          strategy: 'B',
          mainAttempts: 1,
          backoffBaseMs: 1,
          backoffMaxMs: 1,
          attemptTimeoutMs: 2_000,
          probeIntervalMs: 300,
          probeMaxIntervalMs: 600,
          probeJitterRatio: 0,
        },
        keeper: { maxRefreshIntervalMs: 500, jitterRatio: 0 },
      });
      try {
        await page.evaluate(() => window.rendererApp.start());
        const onMain = (s: RendererShown) =>
          s.activeService === 'main' && s.items[0]?.servedBy === 'main';
        const first = await waitShown(onMain, 'ItemA via main');
        expect(first.service).toBe('Licensed via the licensing service');

        await setMainFault(mock.server, { mode: 'error', status: 503 });
        await waitShown(
          (s) => s.activeService === 'standby' && s.items[0]?.servedBy === 'standby',
          'ItemA via the standby',
        );
        await clearFaults(mock.server);
        await waitShown(onMain, 'ItemA via main again');

        const services = (await page.evaluate(() => window.rendererApp.shown()))
          .map((state) => state.activeService)
          .filter((service, i, all) => service !== null && service !== all[i - 1]);
        expect(services).toEqual(['main', 'standby', 'main']);

        // The window's whole view of licensing: two functions, and payloads with no secret.
        expect(await page.evaluate(() => window.rendererApp.surface())).toEqual({
          keys: ['onChange', 'status'],
          ipcRenderer: false,
        });
        const crossed = (await page.evaluate(() => window.rendererApp.crossed())).join('\n');
        expect(crossed.length).toBeGreaterThan(0);
        expect(crossed).not.toMatch(/eyJ|"token"|leaseId|licenseId|"claims"/);
        for (const lease of licensing.client.status().leases) {
          expect(crossed).not.toContain(lease.token);
          expect(crossed).not.toContain(lease.leaseId);
        }
      } finally {
        await licensing.stop();
      }
    }, 60_000);
  },
);
