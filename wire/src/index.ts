// The `/authz/.jwt` wire contract the SDK and the mock server share: the reserved names, and how a
// service reads a request. A private workspace: each package bundles it into its build.
export {
  type AuthzItem,
  type AuthzRequest,
  InvalidAuthzRequest,
  MAX_AUTHZ_ITEMS,
  type ParseAuthzRequestOptions,
  parseAuthzRequest,
} from './parse-authz-request.js';
export { type AuthzEcho, parseEchoParameters } from './parse-echo-parameters.js';
export {
  STANDBY_EVENT_SOURCE,
  type StandbyUsageEvent,
  type StandbyUsageRow,
  summarizeStandbyUsage,
} from './standby-usage.js';
export { LEASE_CLAIM_NAMES, RESERVED_ITEM_NAMES, RESERVED_PARAMETERS } from './wire-names.js';
