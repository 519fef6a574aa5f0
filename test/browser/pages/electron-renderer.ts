// Page script of electron-renderer.test.ts: the Electron-shaped example's preload bridge and
// renderer (examples/electron/preload.ts, renderer.ts), bundled from the built SDK, with stand-ins
// for Electron's `contextBridge` and `ipcRenderer`: `invoke` goes to the test's main-process
// module through a Playwright binding (`electronIpcInvoke`), and the test delivers the main
// process's `webContents.send` with `electronShim.deliver`. Every payload that crossed is kept,
// so the test can check that no token ever reached the window.
import { exposeLicensing, type LicensingBridge } from '../../../examples/electron/preload.js';
import { showLicense } from '../../../examples/electron/renderer.js';

type Listener = (event: unknown, payload: unknown) => void;

/** What the page shows now. */
export interface RendererShown {
  activeService: string | null;
  service: string;
  items: Array<{ item: string; servedBy: string | null }>;
}

/** The page's test surface, on `window.rendererApp`. */
export interface RendererAppPage {
  start(): Promise<void>;
  now(): RendererShown;
  /** Every distinct state shown, oldest first. */
  shown(): RendererShown[];
  /** Every payload that crossed from the main process, as JSON text. */
  crossed(): string[];
  /** The keys of `window.licensing`, and whether anything of Electron leaked into the window. */
  surface(): { keys: string[]; ipcRenderer: boolean };
}

declare global {
  interface Window {
    rendererApp: RendererAppPage;
    electronShim: { deliver(channel: string, payload: unknown): void };
    electronIpcInvoke(channel: string): Promise<unknown>;
    licensing: LicensingBridge;
  }
}

const listeners = new Map<string, Set<Listener>>();
const crossed: string[] = [];
const shown: RendererShown[] = [];

const ipcRenderer = {
  async invoke(channel: string) {
    const payload = await window.electronIpcInvoke(channel);
    crossed.push(JSON.stringify(payload));
    return payload;
  },
  on(channel: string, listener: Listener) {
    const set = listeners.get(channel) ?? new Set<Listener>();
    listeners.set(channel, set);
    set.add(listener);
  },
  removeListener(channel: string, listener: Listener) {
    listeners.get(channel)?.delete(listener);
  },
};

// Like Electron's contextBridge: the window gets a frozen copy of the API, nothing else.
const contextBridge = {
  exposeInMainWorld(key: string, api: unknown) {
    Object.defineProperty(window, key, { value: Object.freeze({ ...(api as object) }) });
  },
};

window.electronShim = {
  deliver(channel, payload) {
    crossed.push(JSON.stringify(payload));
    for (const listener of listeners.get(channel) ?? []) listener({ sender: 'main' }, payload);
  },
};

exposeLicensing({ contextBridge, ipcRenderer });

function read(): RendererShown {
  const service = document.querySelector('[data-testid="service"]');
  return {
    activeService: service?.getAttribute('data-active-service') ?? null,
    service: service?.textContent ?? '',
    items: [...document.querySelectorAll('li[data-item]')].map((li) => ({
      item: li.getAttribute('data-item') ?? '',
      servedBy: li.getAttribute('data-served-by'),
    })),
  };
}

window.rendererApp = {
  async start() {
    const container = document.createElement('div');
    document.body.append(container);
    new MutationObserver(() => {
      const state = read();
      if (JSON.stringify(state) !== JSON.stringify(shown.at(-1))) shown.push(state);
    }).observe(container, { subtree: true, childList: true, attributes: true });
    await showLicense(container, window.licensing);
  },
  now: read,
  shown: () => shown,
  crossed: () => crossed,
  surface: () => ({
    keys: Object.keys(window.licensing).sort(),
    ipcRenderer: 'ipcRenderer' in window,
  }),
};
