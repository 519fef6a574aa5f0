// The one source of truth for the names the `/authz/.jwt` wire reserves (docs/protocol.md,
// "Leases" and "Token claims"). The SDK refuses such item names before sending; the mock server
// and the SDK's fake services answer them with 400 (parse-authz-request.ts); the abuse tests draw
// from them. It imports nothing.

/** Request parameters that are never licensed items. */
export const RESERVED_PARAMETERS: readonly string[] = Object.freeze([
  'hw',
  'process',
  'version',
  'doConsume',
  'consumptionMode',
  'consumeDuration',
  'consumeCount',
  'leaseId',
  'licenseId',
  'release',
  'ownerOrganizationId',
  'ownerUserId',
  'entitlementId',
]);

/**
 * Claims of a lease token. An item named like one would collide with it (`<item>: true`), and
 * `__proto__` cannot be a claim name of a JavaScript object at all.
 */
export const LEASE_CLAIM_NAMES: readonly string[] = Object.freeze([
  'iss',
  'sub',
  'aud',
  'iat',
  'exp',
  'nbf',
  'jti',
  'lic',
  'rfr',
  'hw',
  'hwName',
  'process',
  'version',
  'consumptionMode',
  '__proto__',
]);

/** Every name an item (or a released lease id) may not have. */
export const RESERVED_ITEM_NAMES: ReadonlySet<string> = new Set([
  ...RESERVED_PARAMETERS,
  ...LEASE_CLAIM_NAMES,
]);
