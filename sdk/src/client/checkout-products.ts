import { LicensingError } from '../errors.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import type { CallOptions } from '../types.js';
import type { ClientContext } from './client-context.js';
import type { ProductCheckout, ProductCheckoutResult } from './licensing-client.js';

const DIMENSIONS = ['SEATS', 'USE_COUNT', 'USE_TIME'];

function invalid(message: string): LicensingError {
  return new LicensingError('INVALID_ARGUMENT', message);
}

function validateProducts(products: readonly ProductCheckout[]): void {
  if (!Array.isArray(products) || products.length === 0) {
    throw invalid('products must be a non-empty array');
  }
  products.forEach((product, i) => {
    if (typeof product?.productName !== 'string' || product.productName === '') {
      throw invalid(`products[${i}].productName must be a non-empty string`);
    }
    if (!Number.isInteger(product.qty) || product.qty < 1) {
      throw invalid(`products[${i}].qty must be an integer >= 1`);
    }
    if (!DIMENSIONS.includes(product.qtyDimension)) {
      throw invalid(`products[${i}].qtyDimension must be one of ${DIMENSIONS.join(', ')}`);
    }
  });
}

/**
 * `client.checkoutProducts`: the main service's `POST /licensing/actions/checkout` (ID-token auth
 * only). Main only, with the usual main attempts: the standby has no such action and counts no
 * seats, so there is nothing to fail over to. Every granted token is verified.
 */
export async function checkoutProducts(
  context: ClientContext,
  products: readonly ProductCheckout[],
  options: CallOptions = {},
): Promise<ProductCheckoutResult[]> {
  validateProducts(products);
  return context.strategy.runOnMain(async (service, signal) => {
    const { url, json: parsed } = await context.transport.request(
      service,
      {
        path: '/licensing/actions/checkout',
        method: 'POST',
        body: JSON.stringify(products),
        contentType: 'application/json',
        expect: 'json',
      },
      signal,
    );
    if (!Array.isArray(parsed)) {
      throw new FailedAttempt({
        ok: false,
        outage: true,
        reason: 'malformed-body',
        error: new LicensingError(
          'SERVICE_UNAVAILABLE',
          `the main licensing service answered its checkout action without a JSON array (${url})`,
        ),
      });
    }
    // Verified inside the attempt: a main JWKS that cannot be loaded is a failed main attempt.
    return Promise.all(
      (parsed as ProductCheckoutResult[]).map(async (entry) => {
        if (typeof entry.jwt !== 'string') return entry;
        const claims = await context.verifier.verify(entry.jwt, {
          service,
          ...(signal ? { signal } : {}),
        });
        return { ...entry, claims };
      }),
    );
  }, options.signal);
}
