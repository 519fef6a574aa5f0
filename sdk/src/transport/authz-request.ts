import type { LicensingService } from '../types.js';
import { expectTokens } from './classify-outcome.js';
import type { LicensingResponse, LicensingTransport } from './licensing-transport.js';

/** An `/authz/.jwt` answer: its tokens in request order, and the services' time it showed. */
export interface AuthzAnswer {
  tokens: string[];
  /** From the answer's `Date` header, in ms, when readable. */
  serviceTime: number | undefined;
}

/**
 * One `/authz/.jwt` exchange (consume, renew or release) on `service`: exactly `count` tokens
 * in request order (`keepalive`: fetch's, so that a release outlives the page). Any other 2xx body is an outage of the service (the classifier's
 * `malformed-body`), so failover applies.
 *
 * @example
 * const { tokens } = await requestAuthz(transport, 'main', 'ItemA&hw=H1', 1, signal);
 */
export async function requestAuthz(
  transport: LicensingTransport,
  service: LicensingService,
  query: string,
  count: number,
  signal: AbortSignal | undefined,
  options: { keepalive?: boolean } = {},
): Promise<AuthzAnswer> {
  const response: LicensingResponse = await transport.request(
    service,
    {
      path: '/authz/.jwt',
      query,
      expect: expectTokens(count),
      signingKey: true,
      ...(options.keepalive ? { keepalive: true } : {}),
    },
    signal,
  );
  return { tokens: response.value as string[], serviceTime: response.serviceTime };
}
