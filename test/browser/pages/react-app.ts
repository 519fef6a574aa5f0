// Page script of react-license-status.test.ts: the React example (examples/react/licensed-app.tsx)
// bundled from the built SDK with React, started with what the test hands it, and a log of what
// the page showed (from the DOM, as a user sees it), so the test can tell the order of states.
import type { FailoverOptions, LeaseKeeperOptions, TrustedRoot } from '@standby-licensing/sdk';
import { type LicensedApp, startLicensedApp } from '../../../examples/react/licensed-app.js';

/** What the test hands the page. */
export interface ReactAppConfig {
  mainUrl: string;
  standbyUrl: string;
  roots: TrustedRoot[];
  idToken: string;
  items: string[];
  failover?: FailoverOptions;
  keeper?: LeaseKeeperOptions;
}

/** One state the page showed: the service line and each item's line. */
export interface ShownState {
  activeService: string | null;
  online: string | null;
  service: string;
  items: Array<{ item: string; servedBy: string | null; text: string }>;
  error: string | null;
  gate: string | null;
}

/** The page's surface, on `window.reactApp`. */
export interface ReactAppPage {
  start(config: ReactAppConfig): Promise<void>;
  /** Every distinct state the page showed since `start`, oldest first. */
  shown(): ShownState[];
  /** What the page shows now. */
  now(): ShownState;
  /** The client's status as the app sees it (no tokens). */
  status(): { activeService: string; online: boolean; items: string[]; lastError?: string };
}

declare global {
  interface Window {
    reactApp: ReactAppPage;
  }
}

let app: LicensedApp | undefined;
const shown: ShownState[] = [];

function read(container: Element): ShownState {
  const section = container.querySelector('section[aria-label="License"]');
  return {
    activeService: section?.getAttribute('data-active-service') ?? null,
    online: section?.getAttribute('data-online') ?? null,
    service: container.querySelector('[data-testid="service"]')?.textContent ?? '',
    items: [...container.querySelectorAll('li[data-item]')].map((li) => ({
      item: li.getAttribute('data-item') ?? '',
      servedBy: li.getAttribute('data-served-by'),
      text: li.textContent ?? '',
    })),
    error: container.querySelector('[role="alert"]')?.getAttribute('data-error-code') ?? null,
    gate: container.querySelector('[data-testid="gate"]')?.textContent ?? null,
  };
}

window.reactApp = {
  async start(config) {
    const container = document.createElement('div');
    document.body.append(container);
    new MutationObserver(() => {
      const state = read(container);
      if (JSON.stringify(state) !== JSON.stringify(shown.at(-1))) shown.push(state);
    }).observe(container, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
    app = await startLicensedApp(container, {
      mainUrl: config.mainUrl,
      standbyUrl: config.standbyUrl,
      roots: config.roots,
      idToken: async () => config.idToken,
      items: config.items,
      ...(config.failover ? { failover: config.failover } : {}),
      ...(config.keeper ? { keeper: config.keeper } : {}),
    });
  },
  shown: () => shown,
  now: () => read(document.body),
  status() {
    if (!app) throw new Error('reactApp.start() first');
    const status = app.client.status();
    return {
      activeService: status.activeService,
      online: status.online,
      items: status.leases.map((lease) => lease.item),
      ...(status.lastError ? { lastError: status.lastError.code } : {}),
    };
  },
};
