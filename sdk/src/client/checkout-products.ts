import { LicensingError, TokenInvalidError } from '../errors.js';
import { buildEchoQuery } from '../internal/authz-wire.js';
import { toLease } from '../lease/lease.js';
import type { ExpectedBody } from '../transport/classify-outcome.js';
import type { CallOptions, LeaseClaims } from '../types.js';
import { acceptFreshLease, learnServiceTime } from './accept-token.js';
import type { ClientContext } from './client-context.js';
import type { ProductCheckout, ProductCheckoutResult } from './licensing-client.js';

const DIMENSIONS = ['SEATS', 'USE_COUNT', 'USE_TIME'];

function invalid(message: string): LicensingError {
  return new LicensingError('INVALID_ARGUMENT', message);
}

function validateProducts(products: readonly ProductCheckout[]): void {
  if (!Array.isArray(products) || products.length === 0) {
    throw invalid(
      'products is not a non-empty array. Pass { productName, qty, qtyDimension } per product.',
    );
  }
  products.forEach((product, i) => {
    if (typeof product?.productName !== 'string' || product.productName === '') {
      throw invalid(
        `products[${i}].productName is not a non-empty string. Pass the product's name.`,
      );
    }
    if (!Number.isInteger(product.qty) || product.qty < 1) {
      throw invalid(
        `products[${i}].qty is not an integer >= 1. Pass a whole quantity of 1 or more.`,
      );
    }
    if (!DIMENSIONS.includes(product.qtyDimension)) {
      throw invalid(
        `products[${i}].qtyDimension is not one of ${DIMENSIONS.join(', ')}. Pass one of them.`,
      );
    }
  });
}

/** The main service's answer: one object per requested product, in request order. */
function expectResults(count: number): ExpectedBody {
  return {
    kind: 'json',
    what: `a JSON array of ${count} product results`,
    read: (json) => {
      if (!Array.isArray(json) || json.length !== count || !json.every(isObject)) {
        throw new TypeError('not an array of product results');
      }
      return json;
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `client.checkoutProducts`: the main service's `POST /licensing/actions/checkout` (ID-token auth
 * only). Main only, with the usual main attempts: the standby has no such action and counts no
 * seats, so there is nothing to fail over to. A product counts as granted only together with a
 * token that is a lease for that very product (`granted: true` without one is `TOKEN_INVALID`);
 * granted leases are saved like a checkout's.
 */
export async function checkoutProducts(
  context: ClientContext,
  products: readonly ProductCheckout[],
  options: CallOptions = {},
): Promise<ProductCheckoutResult[]> {
  validateProducts(products);
  await context.state.load();
  const results = await context.strategy.runOnMain(async (service, signal) => {
    const response = await context.transport.request(
      service,
      {
        path: '/licensing/actions/checkout',
        // `hw` and `version` as on /authz, so the leases are bound to this device too.
        query: buildEchoQuery(context.echoes),
        method: 'POST',
        body: JSON.stringify(products),
        contentType: 'application/json',
        expect: expectResults(products.length),
      },
      signal,
    );
    const answer = { serviceTime: response.serviceTime };
    // Verified inside the attempt: a main JWKS that cannot be loaded is a failed main attempt.
    const entries = await Promise.all(
      (response.value as Record<string, unknown>[]).map(async (entry, i) => {
        const productName = products[i]!.productName;
        const result = readResult(entry, productName);
        if (!result.granted) return { result };
        if (typeof entry.jwt !== 'string') {
          throw new TokenInvalidError(
            'not-a-lease',
            `main granted ${productName} without a lease token. Check that mainUrl is the main licensing service.`,
          );
        }
        const claims = await acceptFreshLease(
          context,
          service,
          entry.jwt,
          productName,
          answer,
          signal,
        );
        return { result: { ...result, jwt: entry.jwt, claims }, claims };
      }),
    );
    const verified = entries.flatMap((entry) => (entry.claims ? [entry.claims] : []));
    learnServiceTime(context, answer, verified);
    return entries.map(({ result }) =>
      result.jwt !== undefined && result.claims
        ? {
            ...result,
            lease: toLease(
              result.productName,
              result.jwt,
              result.claims as LeaseClaims,
              service,
              context.clock.offsetMs,
            ),
          }
        : result,
    );
  }, options.signal);
  const leases = results.flatMap((result) => (result.lease ? [result.lease] : []));
  if (leases.length > 0) await context.state.remember(leases);
  return results;
}

/** The fields of one product result the SDK reports (a granted one's token is checked apart). */
function readResult(entry: Record<string, unknown>, productName: string): ProductCheckoutResult {
  return {
    productName,
    granted: entry.granted === true,
    ...(typeof entry.errorCode === 'string' ? { errorCode: entry.errorCode } : {}),
    ...(typeof entry.errorDescription === 'string'
      ? { errorDescription: entry.errorDescription }
      : {}),
  };
}
