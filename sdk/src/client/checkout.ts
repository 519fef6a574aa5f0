import { LicensingError } from '../errors.js';
import { type AuthzItem, buildCheckoutQuery } from '../internal/authz-wire.js';
import { loneSurrogateAt } from '../internal/lone-surrogate.js';
import { RESERVED_ITEM_NAMES } from '../internal/wire-names.js';
import { readDenial, toLease } from '../lease/lease.js';
import { readLeaseToken } from '../lease/lease-token.js';
import { requestAuthz } from '../transport/authz-request.js';
import type {
  CallOptions,
  CheckoutItem,
  CheckoutResult,
  DeniedItem,
  Lease,
  LeaseClaims,
  LicensingService,
} from '../types.js';
import { acceptFreshAnswer, acceptFreshLease, learnServiceTime } from './accept-token.js';
import type { ClientContext } from './client-context.js';

function invalid(message: string): LicensingError {
  return new LicensingError('INVALID_ARGUMENT', message);
}

/** Checks a checkout's items: a non-empty list of distinct, non-reserved names. */
export function normalizeItems(items: readonly (string | CheckoutItem)[]): AuthzItem[] {
  if (!Array.isArray(items) || items.length === 0) {
    throw invalid('items is not a non-empty array. Pass the names of the items to check out.');
  }
  const seen = new Set<string>();
  return items.map((entry, i) => {
    const { item, licenseId } =
      typeof entry === 'string'
        ? { item: entry, licenseId: undefined }
        : (entry ?? ({} as CheckoutItem));
    if (typeof item !== 'string' || item === '') {
      throw invalid(`items[${i}] names no item. Pass an item name, or { item, licenseId }.`);
    }
    if (RESERVED_ITEM_NAMES.has(item)) {
      throw invalid(
        `items[${i}] '${item}' is a reserved parameter or claim name. Rename the item in the licensing catalogue.`,
      );
    }
    if (seen.has(item)) {
      throw invalid(`items[${i}] '${item}' is requested twice. Pass each item once.`);
    }
    for (const [what, text] of [
      [`items[${i}]`, item],
      [`items[${i}].licenseId`, licenseId],
    ] as const) {
      if (typeof text === 'string' && loneSurrogateAt(text) >= 0) {
        throw invalid(
          `${what} contains a lone UTF-16 surrogate, which no URL can carry. Fix the name (a surrogate pair cut in two).`,
        );
      }
    }
    if (licenseId !== undefined && (typeof licenseId !== 'string' || licenseId === '')) {
      throw invalid(
        `items[${i}].licenseId is not a non-empty string. Pass a license id, or leave it out.`,
      );
    }
    seen.add(item);
    return { item, licenseId };
  });
}

type Outcome = { item: string; token: string; claims: LeaseClaims } | { denied: DeniedItem };

/**
 * Checks `items` out on one service: one `/authz/.jwt` request, every token verified as a lease
 * for its item (a denial too, as a signed answer: a forged denial must not hide an outage or a
 * grant). Main's per-item `noLicenseFound` comes back in `denied`.
 */
export async function checkoutOn(
  context: ClientContext,
  service: LicensingService,
  items: readonly AuthzItem[],
  signal: AbortSignal | undefined,
): Promise<CheckoutResult> {
  const query = buildCheckoutQuery(items, context.echoes);
  const answer = await requestAuthz(context.transport, service, query, items.length, signal);
  const outcomes = await Promise.all(
    items.map(async ({ item }, i): Promise<Outcome & { verified: LeaseClaims }> => {
      const token = readLeaseToken(answer.tokens[i]);
      const denial = service === 'main' ? readDenial(item, token.claims) : undefined;
      if (denial) {
        const verified = await acceptFreshAnswer(context, service, token, answer, signal);
        return { denied: denial, verified };
      }
      const claims = await acceptFreshLease(context, service, token, item, answer, signal);
      return { item, token: token.token, claims, verified: claims };
    }),
  );
  learnServiceTime(
    context,
    answer,
    outcomes.map((outcome) => outcome.verified),
  );
  const result: CheckoutResult = { leases: [], denied: [] };
  for (const outcome of outcomes) {
    if ('denied' in outcome) result.denied.push(outcome.denied);
    else {
      result.leases.push(
        toLease(outcome.item, outcome.token, outcome.claims, service, context.clock.offsetMs),
      );
    }
  }
  return result;
}

/**
 * `client.checkout`: checks the items, checks them out through the failover strategy, and
 * saves the leases in the lease store. Online, the services' clock is the truth: a local clock
 * that is off (or was set back) does not stop a checkout.
 */
export async function checkout(
  context: ClientContext,
  items: readonly (string | CheckoutItem)[],
  options: CallOptions = {},
): Promise<CheckoutResult> {
  return checkoutAndSave(context, items, options, []);
}

/**
 * A lease keeper's new checkout of `lease`'s item (the serving service refused its lease id):
 * the granted lease takes the old one's place in the lease store. A denial leaves the old one.
 */
export async function reissue(
  context: ClientContext,
  lease: Lease,
  options: CallOptions = {},
): Promise<CheckoutResult> {
  return checkoutAndSave(context, [lease.item], options, [lease.leaseId]);
}

async function checkoutAndSave(
  context: ClientContext,
  items: readonly (string | CheckoutItem)[],
  options: CallOptions,
  replaced: readonly string[],
): Promise<CheckoutResult> {
  const normalized = normalizeItems(items);
  await context.state.load();
  const result = await context.strategy.run(
    (service, signal) => checkoutOn(context, service, normalized, signal),
    options.signal,
  );
  await context.state.remember(result.leases, result.leases.length > 0 ? replaced : []);
  return result;
}
