/**
 * preload.ts: the bridge a window of the Electron-shaped example gets (see licensing-main.ts).
 *
 * What it does:
 *   Exposes `window.licensing` to the renderer with `contextBridge`: `status()` asks the main
 *   process (`licensing:status`), `onChange(listener)` hears every change (`licensing:changed`)
 *   and returns an unsubscribe. Nothing else crosses: no `ipcRenderer`, no client, no token.
 *
 * In Electron (preload.js, bundled by the app's bundler, since a sandboxed preload can only
 * require 'electron'):
 *
 *   import { contextBridge, ipcRenderer } from 'electron';
 *   import { exposeLicensing } from './preload.js';
 *   exposeLicensing({ contextBridge, ipcRenderer });
 *
 * Needs: contextIsolation on (Electron's default). test/browser/electron-renderer.test.ts runs it
 * in Chromium with a stand-in for `contextBridge` and `ipcRenderer` wired to the main module.
 */
import type { RendererStatus } from './renderer-status.js';

/** The part of Electron's `contextBridge` used here. */
export interface ContextBridgeLike {
  exposeInMainWorld(key: string, api: unknown): void;
}

/** The part of Electron's `ipcRenderer` used here. */
export interface IpcRendererLike {
  invoke(channel: string): Promise<unknown>;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
}

/** What a window gets as `window.licensing`. */
export interface LicensingBridge {
  status(): Promise<RendererStatus>;
  onChange(listener: (status: RendererStatus) => void): () => void;
}

/** Exposes {@link LicensingBridge} as `window.licensing`. */
export function exposeLicensing(electron: {
  contextBridge: ContextBridgeLike;
  ipcRenderer: IpcRendererLike;
}): void {
  const { contextBridge, ipcRenderer } = electron;
  const bridge: LicensingBridge = {
    status: () => ipcRenderer.invoke('licensing:status') as Promise<RendererStatus>,
    onChange(listener) {
      // Only the payload crosses: never Electron's event object (it reaches ipcRenderer).
      const forward = (_event: unknown, payload: unknown) => listener(payload as RendererStatus);
      ipcRenderer.on('licensing:changed', forward);
      return () => {
        ipcRenderer.removeListener('licensing:changed', forward);
      };
    },
  };
  contextBridge.exposeInMainWorld('licensing', bridge);
}
