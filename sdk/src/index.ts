// The public surface of @standby-licensing/sdk. Explicit names only: anything not listed here
// (sdk/src/internal/ above all) is private.

export {
  ApiResponseError,
  type ApiResponseErrorInit,
  isLicensingError,
  LicensingError,
  type LicensingErrorCode,
  type LicensingErrorOptions,
  type ServiceName,
} from './errors.js';

// --- licensing client (failover, auth, lease) ---

export {
  createIdTokenSource,
  type IdTokenResult,
  type IdTokenSource,
  type IdTokenSourceOptions,
  type IdTokenStore,
} from './auth/id-token-source.js';
export { createMemoryIdTokenStore } from './auth/memory-id-token-store.js';
export { canonicalPublicKeyPem, computeServiceKeyHash } from './auth/service-key-hash.js';
export type {
  CallOptions,
  CheckoutItem,
  CheckoutResult,
  LicensingClient,
  ProductCheckout,
  ProductCheckoutResult,
  VerifyOptions,
} from './client/build-licensing-client.js';
export { createLicensingClient } from './client/create-licensing-client.js';
export type {
  AttemptFailedEvent,
  FailbackEvent,
  FailbackReason,
  FailoverEvent,
  IdTokenGraceEvent,
  LeaseRenewedEvent,
  LicensingEventHooks,
  LicensingEventListener,
  LicensingEventMap,
  LicensingEvents,
  LicensingLogger,
  RenewFailedEvent,
  RootExpiringEvent,
} from './client/licensing-events.js';
export type { FailureReason, LicensingService } from './failover/classify-failure.js';
export type { DeniedItem, Lease } from './lease/lease.js';
export type { LeaseKeeper, LeaseKeeperOptions } from './lease/lease-keeper.js';
export {
  createLeaseVerifier,
  type JwkSet,
  type JwksLoader,
  type LeaseClaims,
  type LeaseVerifier,
  type LeaseVerifierOptions,
  type RootExpiringInfo,
  type TrustedRoot,
} from './lease/lease-verifier.js';
export {
  DEFAULTS,
  type FailoverOptions,
  type IdTokenAuthOptions,
  type LicensingAuthOptions,
  type LicensingClientOptions,
  type ServiceKeyHashAuthOptions,
  type ServicePublicKeyAuthOptions,
  type TrustOptions,
  type WireNameOptions,
} from './options.js';

// --- event feeds ---
