// The browser's stand-in for network-fetch.ts: package.json's `browser` field maps that module to
// this one, so a browser bundle carries neither the fence (the runtime detection, the loader of
// the Node network module, its messages) nor anything for Bun and Deno. A browser owns its proxies
// and certificates: `proxy` and `tls` do nothing there, as the fence itself decides in a browser.
import type { createDefaultFetch as onEveryRuntime } from './network-fetch.js';

/** The global `fetch`, looked up at call time (msw and instrumentation may patch it later). */
export const createDefaultFetch: typeof onEveryRuntime = () => (input, init) =>
  globalThis.fetch(input, init);
