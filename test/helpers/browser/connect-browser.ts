import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { inject } from 'vitest';

/** The shared Chromium's endpoint, or `null` when the browser tests skip (see global-setup). */
export function chromiumEndpoint(): string | null {
  return inject('chromiumEndpoint');
}

/** A connection to the shared Chromium and one fresh, isolated context (own storage, cache). */
export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  /** Closes the context and the connection; the browser keeps running for other files. */
  close(): Promise<void>;
}

/** Connects to the shared Chromium over the DevTools protocol and opens a new context. */
export async function openBrowserSession(): Promise<BrowserSession> {
  const endpoint = chromiumEndpoint();
  if (endpoint === null) throw new Error('no shared Chromium: guard with describe.skipIf');
  const browser = await chromium.connectOverCDP(endpoint);
  const context = await browser.newContext();
  return {
    browser,
    context,
    close: async () => {
      await context.close();
      await browser.close();
    },
  };
}
