import {
  type ReleaseOnPageHideOptions,
  resolvePageHideOptions,
} from '../options/app-integration.js';
import type { LicensingClient } from './licensing-client.js';

/**
 * Releases the client's leases when the page goes away (`pagehide`: the tab closes, the user
 * navigates away, an Electron window closes), so the seats do not stay taken until the leases
 * expire. On `pagehide` it calls `client.close({ release: true, keepalive: true })`: one release
 * request through the client's transport (its `Authorization` header, failover), sent with
 * fetch's `keepalive` so that the browser finishes it after the page is gone, and the client is
 * closed. A page restored from the back/forward cache (`pageshow` with `persisted`) must create a
 * new client. Where the runtime has no window (Node, a worker) it does nothing: use
 * `releaseOnExit` from `@standby-licensing/sdk/node` there.
 *
 * @param client The licensing client whose leases to release.
 * @param options `target`: where `pagehide` fires. Default: the window.
 * @returns A function that removes the listener.
 * @example
 * const client = createLicensingClient(options);
 * const stop = releaseOnPageHide(client);
 * // ... later, to keep the leases on page hide after all:
 * stop();
 */
export function releaseOnPageHide(
  client: LicensingClient,
  options: ReleaseOnPageHideOptions = {},
): () => void {
  const { target } = resolvePageHideOptions(options);
  if (!target) return () => {};
  const onPageHide = () => {
    // Nothing after this event can wait for an answer: the request leaves now, keepalive.
    client.close({ release: true, keepalive: true }).catch(() => undefined);
  };
  target.addEventListener('pagehide', onPageHide);
  return () => target.removeEventListener('pagehide', onPageHide);
}
