import type { Page } from 'playwright-core';
import { bundlePage, type PageBundle } from './bundle-page.js';
import { type BrowserSession, openBrowserSession } from './connect-browser.js';
import { type ServedPage, type ServePageOptions, servePage } from './serve-page.js';

/** A page script bundled, served from its own origin, and a browser context to open it in. */
export interface PageFixture {
  bundle: PageBundle;
  served: ServedPage;
  session: BrowserSession;
  /** Opens the page in a new tab and waits until its script set `window[global]`. */
  open(): Promise<Page>;
  /** Closes the context, the connection and the page's server. */
  close(): Promise<void>;
}

/**
 * Bundles `entry` from the built packages ({@link bundlePage}), serves it on its own loopback
 * origin ({@link servePage}) and connects to the shared Chromium ({@link openBrowserSession}).
 * `global` is the name the page script puts its surface under, e.g. `'licensingApp'`.
 */
export async function startPageFixture(
  entry: URL,
  global: string,
  options: ServePageOptions = {},
): Promise<PageFixture> {
  const [bundle, session] = await Promise.all([bundlePage(entry), openBrowserSession()]);
  const served = await servePage(bundle.code, `standby-licensing: ${global}`, options);
  return {
    bundle,
    served,
    session,
    async open() {
      const page = await session.context.newPage();
      await page.goto(served.url);
      await page.waitForFunction((name) => name in window, global);
      return page;
    },
    async close() {
      await session.close();
      await served.close();
    },
  };
}
