import { decodeJwt } from 'jose';
import { LicensingError, TokenInvalidError } from '../errors.js';
import { type AuthzItem, buildCheckoutQuery } from '../internal/authz-wire.js';
import { readDenial, toLease } from '../lease/lease.js';
import type {
  CallOptions,
  CheckoutItem,
  CheckoutResult,
  DeniedItem,
  Lease,
  LicensingService,
} from '../types.js';
import { requestTokens } from './authz-exchange.js';
import type { ClientContext } from './client-context.js';

/**
 * Names an item may not have: the reserved `/authz/.jwt` parameters and the token claims an item
 * claim would collide with (DECISIONS.md "Limits of the mock server").
 */
const RESERVED = new Set([
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
  'iss',
  'sub',
  'aud',
  'iat',
  'exp',
  'nbf',
  'jti',
  'lic',
  'rfr',
  'hwName',
]);

function invalid(message: string): LicensingError {
  return new LicensingError('INVALID_ARGUMENT', message);
}

/** Checks a checkout's items: a non-empty list of distinct, non-reserved names. */
export function normalizeItems(items: readonly (string | CheckoutItem)[]): AuthzItem[] {
  if (!Array.isArray(items) || items.length === 0) throw invalid('items must be a non-empty array');
  const seen = new Set<string>();
  return items.map((entry, i) => {
    const { item, licenseId } =
      typeof entry === 'string'
        ? { item: entry, licenseId: undefined }
        : (entry ?? ({} as CheckoutItem));
    if (typeof item !== 'string' || item === '') throw invalid(`items[${i}] must name an item`);
    if (RESERVED.has(item)) {
      throw invalid(`items[${i}] '${item}' is a reserved parameter or claim name`);
    }
    if (seen.has(item)) throw invalid(`items[${i}] '${item}' is requested twice`);
    if (licenseId !== undefined && (typeof licenseId !== 'string' || licenseId === '')) {
      throw invalid(`items[${i}].licenseId must be a non-empty string`);
    }
    seen.add(item);
    return { item, licenseId };
  });
}

/**
 * Checks `items` out on one service: one `/authz/.jwt` request, every token verified (a denial
 * too: a forged denial must not hide an outage or a grant). Main's per-item `noLicenseFound`
 * comes back in `denied`.
 */
export async function checkoutOn(
  context: ClientContext,
  service: LicensingService,
  items: readonly AuthzItem[],
  signal: AbortSignal | undefined,
): Promise<CheckoutResult> {
  const query = buildCheckoutQuery(items, context.echoes);
  const tokens = await requestTokens(context, service, query, items.length, signal);
  const outcomes = await Promise.all(
    items.map(async ({ item }, i): Promise<Lease | DeniedItem> => {
      const token = tokens[i]!;
      let denial: DeniedItem | undefined;
      try {
        denial = service === 'main' ? readDenial(item, decodeJwt(token)) : undefined;
      } catch (cause) {
        throw new TokenInvalidError('malformed', `${service}: token for '${item}' is not a JWT`, {
          cause,
        });
      }
      if (denial) {
        await context.verifier.verify(token, { service, ...(signal ? { signal } : {}) });
        return denial;
      }
      const claims = await context.verifier.verify(token, {
        service,
        item,
        ...(signal ? { signal } : {}),
      });
      return toLease(item, token, claims, service);
    }),
  );
  const result: CheckoutResult = { leases: [], denied: [] };
  for (const outcome of outcomes) {
    if ('leaseId' in outcome) result.leases.push(outcome);
    else result.denied.push(outcome);
  }
  return result;
}

/**
 * `client.checkout`: checks the items and the clock (`CLOCK_ROLLBACK`), checks them out through
 * the failover strategy, and saves the leases in the lease store.
 */
export async function checkout(
  context: ClientContext,
  items: readonly (string | CheckoutItem)[],
  options: CallOptions = {},
): Promise<CheckoutResult> {
  const normalized = normalizeItems(items);
  await context.saved.ready();
  context.saved.assertClock();
  const result = await context.strategy.run(
    (service, signal) => checkoutOn(context, service, normalized, signal),
    options.signal,
  );
  await context.saved.remember(result.leases);
  return result;
}
