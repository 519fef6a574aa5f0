// The public surface of @standby-licensing/sdk. Explicit names only: anything not listed here
// (sdk/src/internal/ above all) is private.

export {
  ApiResponseError,
  type ApiResponseErrorInit,
  InvalidOptionError,
  isLicensingError,
  LeaseStoreInvalidError,
  type LeaseStoreInvalidReason,
  LicensingError,
  type LicensingErrorCode,
  type LicensingErrorOptions,
  TokenInvalidError,
  type TokenInvalidReason,
} from './errors.js';
export type {
  CallOptions,
  CheckoutItem,
  CheckoutResult,
  DeniedItem,
  FailureReason,
  IdTokenResult,
  IdTokenStore,
  JwkSet,
  JwksLoader,
  Lease,
  LeaseClaims,
  LeaseStore,
  LeaseStoreSealing,
  LicensingLogger,
  LicensingService,
  SavedLease,
  SavedLicensingState,
  ServiceName,
  TrustedRoot,
} from './types.js';

// --- licensing client (failover, auth, lease) ---

export {
  createIdTokenSource,
  type IdTokenSource,
  type IdTokenSourceOptions,
} from './auth/id-token-source.js';
export { createMemoryIdTokenStore } from './auth/memory-id-token-store.js';
export { canonicalPublicKeyPem, computeServiceKeyHash } from './auth/service-key-hash.js';
export { createLicensingClient } from './client/create-licensing-client.js';
export type { LeaseKeeper, LeaseKeeperOptions } from './client/lease-keeper.js';
export type {
  LicensingClient,
  LicensingStatus,
  PreflightCheck,
  PreflightCheckId,
  PreflightResult,
  ProductCheckout,
  ProductCheckoutResult,
  RestoreResult,
  VerifyOptions,
} from './client/licensing-client.js';
export { releaseOnPageHide } from './client/release-on-page-hide.js';
export type {
  AttemptFailedEvent,
  CircuitCloseEvent,
  CircuitOpenEvent,
  FailbackEvent,
  FailbackReason,
  FailoverEvent,
  IdTokenGraceEvent,
  KeysFetchedEvent,
  LeaseRenewedEvent,
  LicensingEventHooks,
  LicensingEventListener,
  LicensingEventMap,
  LicensingEvents,
  RenewFailedEvent,
  RootExpiringEvent,
  RootExpiringInfo,
} from './client-hooks.js';
export {
  createLeaseVerifier,
  type LeaseVerifier,
  type LeaseVerifierOptions,
  type VerifyLeaseOptions,
} from './lease/lease-verifier.js';
export { createMemoryLeaseStore } from './lease/memory-lease-store.js';
export {
  createWebStorageLeaseStore,
  type WebStorageLeaseStoreOptions,
  type WebStorageLike,
} from './lease/web-storage-lease-store.js';
export type {
  CloseOptions,
  PageHideTarget,
  ReleaseOnPageHideOptions,
} from './options/app-integration.js';
export { DEFAULTS } from './options/defaults.js';
export type {
  BreakerOptions,
  FailoverOptions,
  IdTokenAuthOptions,
  LicensingAuthOptions,
  LicensingClientOptions,
  ServiceKeyHashAuthOptions,
  ServicePublicKeyAuthOptions,
  TrustOptions,
  WireNameOptions,
} from './options/licensing-client.js';

// --- event feeds ---

export {
  type CollectOptions,
  createEventClient,
  type EventClient,
  type EventClientOptions,
} from './events/create-event-client.js';
export {
  type ActivationCodeBlockedEvent,
  type ActivationCodeUnblockedEvent,
  type AuditEventFields,
  type CredentialActivatedEvent,
  type CredentialActivationStartedEvent,
  type CredentialDeactivatedEvent,
  type DeletedEvent,
  type EventBase,
  type EventOfType,
  type FeedEvent,
  type ForgotPasswordEmailSentEvent,
  type ForgotPasswordResetEvent,
  type GenericEvent,
  isEventOfType,
  type KnownEventType,
  type KnownLicensingEvent,
  type LicenseProvisionedEvent,
  type LicenseRevokedEvent,
  type OrganizationInvitationDeclinedEvent,
  type StandbyLeaseEventData,
  type StandbyLeaseGrantedEvent,
  type StandbyLeaseReleasedEvent,
  type StandbyLeaseRenewedEvent,
  type UserAddedToOrganizationGroupEvent,
  type UserAddedToOrganizationRoleEvent,
  type UserMfaActivatedEvent,
  type UserMfaDeactivatedEvent,
  type UserPasswordChangedEvent,
  type UserPasswordCreatedEvent,
  type UserRemovedFromOrganizationGroupEvent,
  type UserRemovedFromOrganizationRoleEvent,
} from './events/event-kinds.js';
export type { FeedSelector } from './events/feed-selector.js';
export type { FollowOptions, FollowRetryInfo } from './events/follow-feed.js';
export type { PutAllOptions, PutAllResult } from './events/put-all.js';
export type { NewEvent, PutOptions } from './events/put-events.js';
export type { FeedPage, ReadOptions } from './events/read-feed.js';
export {
  STANDBY_EVENT_SOURCE,
  type StandbyLeaseEventType,
  type StandbyUsageEvent,
  type StandbyUsageOptions,
  type StandbyUsageRow,
  summarizeStandbyUsage,
} from './events/summarize-standby-usage.js';
export {
  compareTimestamps,
  type EventTimestamp,
  parseTimestamp,
  timestampFromDate,
  timestampToDate,
} from './events/timestamp.js';
export type {
  EventReadAuth,
  EventReadKey,
  EventReadTokenProvider,
  EventSigner,
  EventSigningAlgorithm,
  PrivateKeyInput,
} from './options/event-client.js';
