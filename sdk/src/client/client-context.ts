import type { FailoverStrategy } from '../failover/strategy.js';
import type { AuthzEchoes } from '../internal/authz-wire.js';
import type { LeaseVerifier } from '../lease/lease-verifier.js';
import type { SavedLeases } from '../lease/saved-leases.js';
import type { LicensingEventHub } from '../licensing-events.js';
import type { LicensingTransport } from '../transport/licensing-transport.js';

/**
 * What every client operation works with, built once by `createLicensingClient` and passed down:
 * the strategy that routes attempts, the transport that sends them, the verifier every token
 * goes through, and the event hub.
 */
export interface ClientContext {
  strategy: FailoverStrategy;
  transport: LicensingTransport;
  verifier: LeaseVerifier;
  events: LicensingEventHub;
  /** Request details echoed into every lease (`hw`, `hwName`, `version`). */
  echoes: AuthzEchoes;
  /** The standby's base URL, to tell its tokens apart by `iss`. */
  standbyUrl: string;
  /** The lease store: saved leases, JWK sets and the trusted time (clock rollback). */
  saved: SavedLeases;
  /** Verifies saved leases with the saved JWK sets only (no network): `restore()`. */
  offlineVerifier: LeaseVerifier;
}
