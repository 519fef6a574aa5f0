/**
 * licensed-app.tsx: a web app (or an Electron renderer) that keeps a license and shows its state
 * with React.
 *
 * What it does:
 *   Creates one licensing client for the page, gets the license (the leases the last visit left,
 *   else a checkout), keeps it renewed, releases it when the page goes away, and renders
 *   `<LicenseStatus>` and a feature gated on the license. Break the main service while it runs
 *   and the page shows "Licensed via the standby service"; repair it and it shows the licensing
 *   service again, with no code of its own for either.
 *
 * Steps:
 *   1. `createLicensingClient` with the embedded roots and a lease store in localStorage.
 *   2. `releaseOnPageHide(client)`: a closing tab releases the seat (a keepalive request).
 *   3. `client.restore()`, else `client.checkout(items)`; `client.keepAlive(leases)`.
 *   4. `createRoot(container).render(<LicenseStatus client items />)`.
 *
 * Needs:
 *   - The built package in a bundler (esbuild, Vite, webpack): `test/browser/react-license-status.test.ts`
 *     bundles this file from `sdk/dist` with esbuild and drives it in Chromium against the mock
 *     server through an outage of main.
 *   - The services allow the page's origin (CORS); the mock server allows any.
 *
 * Assumptions:
 *   - `roots` are the modules `npx standby-licensing embed-root --format esm` wrote; `idToken`
 *     is your OIDC client's (e.g. oidc-client-ts `getUser()`).
 *   - `keeper.maxRefreshIntervalMs` (renew at least this often) is for a demo or a drill: a real
 *     app renews at each lease's `refreshAt` and leaves it out.
 */
import {
  createLicensingClient,
  createWebStorageLeaseStore,
  type FailoverOptions,
  type LeaseKeeperOptions,
  type LicensingClient,
  releaseOnPageHide,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import { createRoot } from 'react-dom/client';
import { Licensed, LicenseStatus } from './license-status.js';

/** What the app is configured with. */
export interface LicensedAppConfig {
  mainUrl: string;
  standbyUrl: string;
  roots: TrustedRoot[];
  /** The signed-in user's ID token, from the app's OIDC client. */
  idToken: () => Promise<string>;
  /** The items the app needs, e.g. `['ItemA']`; the first gates the feature below. */
  items: string[];
  failover?: FailoverOptions;
  keeper?: LeaseKeeperOptions;
}

/** The running app: its client, and a way to take the page down (tests). */
export interface LicensedApp {
  client: LicensingClient;
  unmount(): void;
}

/** Starts the app in `container`. */
export async function startLicensedApp(
  container: Element,
  config: LicensedAppConfig,
): Promise<LicensedApp> {
  const client = createLicensingClient({
    mainUrl: config.mainUrl,
    standbyUrl: config.standbyUrl,
    auth: { idToken: config.idToken },
    trust: { rootCertificates: config.roots },
    leaseStore: createWebStorageLeaseStore(),
    ...(config.failover ? { failover: config.failover } : {}),
  });
  releaseOnPageHide(client);

  const root = createRoot(container);
  const [gated] = config.items;
  root.render(
    <main>
      <LicenseStatus client={client} items={config.items} />
      {gated ? (
        <Licensed
          client={client}
          item={gated}
          fallback={<p data-testid="gate">Upgrade to use this.</p>}
        >
          <p data-testid="gate">The licensed feature is on.</p>
        </Licensed>
      ) : null}
    </main>,
  );

  // The leases the last visit left (no network), else a checkout. Errors show in the status.
  let { leases } = await client.restore().catch(() => ({ leases: [] as never[] }));
  const missing = config.items.filter((item) => !leases.some((lease) => lease.item === item));
  if (missing.length > 0) {
    const checkedOut = await client.checkout(missing).catch(() => ({ leases: [] as never[] }));
    leases = [...leases, ...checkedOut.leases];
  }
  client.keepAlive(leases, config.keeper);
  return { client, unmount: () => root.unmount() };
}
