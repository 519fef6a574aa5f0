import type { LicensingEventHub } from '../client-hooks.js';
import type { FailoverStrategy } from '../failover/strategy.js';
import type { AuthzEchoes } from '../internal/authz-wire.js';
import type { LeaseState } from '../lease/lease-state.js';
import type { ServiceKeys } from '../lease/service-keys.js';
import type { TrustedClock } from '../lease/trusted-clock.js';
import type { LicensingTransport } from '../transport/licensing-transport.js';
import type { LicensingService } from '../types.js';

/**
 * What every client operation works with, built once by `createLicensingClient` and passed down:
 * the strategy that routes attempts, the transport that sends them, each service's trusted keys,
 * the clock, the persistent state, and the event hub.
 */
export interface ClientContext {
  strategy: FailoverStrategy;
  transport: LicensingTransport;
  /** Each service's key source: its trusted keys, fetched when a `kid` is missing. */
  keys: Record<LicensingService, ServiceKeys>;
  /** The one clock: local time, the services' offset and the rising time mark. */
  clock: TrustedClock;
  /** Saved leases, keys and clock state in the lease store. */
  state: LeaseState;
  events: LicensingEventHub;
  /** Request details echoed into every lease (`hw`, `hwName`, `version`). */
  echoes: AuthzEchoes;
  /** The standby's base URL, to tell its tokens apart by `iss`. */
  standbyUrl: string;
  /** The device every lease must be bound to (`hw`), when the client has one. */
  hardwareId: string | undefined;
  /** Clock difference allowed on `exp`, `nbf`, `iat` and certificate dates, in ms. */
  toleranceMs: number;
}
