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

// --- event feeds ---
