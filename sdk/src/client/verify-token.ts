import { LicensingError } from '../errors.js';
import { toLease } from '../lease/lease.js';
import { readLeaseToken } from '../lease/lease-token.js';
import { unwrapFailedAttempt } from '../transport/failed-attempt.js';
import type { Lease } from '../types.js';
import { acceptKeptLease } from './accept-token.js';
import type { ClientContext } from './client-context.js';
import type { VerifyOptions } from './licensing-client.js';

/**
 * `client.verify`: re-verifies a token the app kept (no failover: it is verified against the keys
 * of the service that issued it, fetched when the app does not hold its `kid` yet) and returns it
 * as a lease, on the app's clock corrected by the services' offset. Refuses with `CLOCK_ROLLBACK`
 * when the clock was set back; an accepted lease raises the time mark. A JWK set that cannot be
 * loaded rejects as the outage it is (`SERVICE_UNAVAILABLE`, `STANDBY_DORMANT`, ...), never
 * `TOKEN_INVALID`.
 */
export async function verifyToken(
  context: ClientContext,
  token: string,
  options: VerifyOptions = {},
): Promise<Lease> {
  if (typeof token !== 'string') {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      'verify() got no token string. Pass a lease token as the app kept it (Lease.token).',
    );
  }
  const parsed = readLeaseToken(token);
  const { iss } = parsed.claims;
  const service =
    options.service ??
    (typeof iss === 'string' && iss.startsWith(context.standbyUrl) ? 'standby' : 'main');
  await context.state.load();
  context.clock.assertNotRolledBack();
  let lease: Lease;
  try {
    const { item, claims } = await acceptKeptLease(context, service, parsed, options.item, {
      signal: options.signal,
    });
    lease = toLease(item, token, claims, service, context.clock.offsetMs);
  } catch (error) {
    throw unwrapFailedAttempt(error);
  }
  await context.state.persist();
  return lease;
}
