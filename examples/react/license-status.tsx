/**
 * license-status.tsx: a React component that shows what the licensing client holds.
 *
 * What it does:
 *   `useLicensingStatus(client)` subscribes to the client with React's `useSyncExternalStore`:
 *   `client.status()` returns the same snapshot until something changes, and `client.subscribe`
 *   tells React when it did, so the component re-renders exactly on a checkout, a renewal, a
 *   failover or failback, a release, an expiry or an error. `<LicenseStatus>` renders "licensed
 *   via the standby until 18:00", one line per item, and what the user should know about the last
 *   error; `<Licensed item>` gates a feature on `client.has(item)`.
 *
 * Steps: none of its own; `licensed-app.tsx` mounts it (see there).
 *
 * Needs: React 18 or newer (`useSyncExternalStore`), `@standby-licensing/sdk`.
 *
 * Assumptions:
 *   - The client lives as long as the page (created once, outside React). A client created inside
 *     a component must be kept in a ref and closed on unmount.
 *   - `has(item)` reads the client's clock: it is right on every render, and the component
 *     re-renders when a lease expires because expiry changes the snapshot too.
 */
import type { LicensingClient, LicensingStatus } from '@standby-licensing/sdk';
import type { ReactNode } from 'react';
import { useSyncExternalStore } from 'react';
import { userMessage } from '../user-message.js';

/** The client's status, re-rendering the component on every change. */
export function useLicensingStatus(client: LicensingClient): LicensingStatus {
  // `client.subscribe` and `client.status` are stable functions: no wrapper, no re-subscribe.
  return useSyncExternalStore(client.subscribe, client.status);
}

function untilText(expiresAt: number): string {
  return new Date(expiresAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** The license state: which service, each item, and the last error for the user. */
export function LicenseStatus(props: { client: LicensingClient; items: readonly string[] }) {
  const { client, items } = props;
  const status = useLicensingStatus(client);
  const via = status.activeService === 'main' ? 'the licensing service' : 'the standby service';
  return (
    <section
      aria-label="License"
      data-active-service={status.activeService}
      data-online={String(status.online)}
    >
      <p data-testid="service">
        {status.online ? `Licensed via ${via}` : `Offline (next call goes to ${via})`}
      </p>
      <ul>
        {items.map((item) => {
          const lease = status.leases.find((held) => held.item === item);
          return (
            <li key={item} data-item={item} data-served-by={lease?.servedBy ?? 'none'}>
              {lease
                ? `${item}: licensed via the ${lease.servedBy} service until ${untilText(lease.expiresAt)}`
                : `${item}: not licensed`}
            </li>
          );
        })}
      </ul>
      {status.lastError && userMessage(status.lastError) ? (
        <p role="alert" data-error-code={status.lastError.code}>
          {userMessage(status.lastError)}
        </p>
      ) : null}
    </section>
  );
}

/** Renders `children` while the client holds a lease for `item`, else `fallback`. */
export function Licensed(props: {
  client: LicensingClient;
  item: string;
  children: ReactNode;
  fallback?: ReactNode;
}) {
  // Subscribing makes the gate re-render when the lease comes, goes or expires.
  useLicensingStatus(props.client);
  return <>{props.client.has(props.item) ? props.children : (props.fallback ?? null)}</>;
}
