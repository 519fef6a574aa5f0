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

// --- event feeds ---
