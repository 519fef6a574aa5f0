import { decodeJwt } from 'jose';
import { LicensingError, TokenInvalidError } from '../errors.js';
import { toLease } from '../lease/lease.js';
import { unwrapFailedAttempt } from '../transport/failed-attempt.js';
import type { Lease } from '../types.js';
import type { ClientContext } from './client-context.js';
import type { VerifyOptions } from './licensing-client.js';

/**
 * `client.verify`: re-verifies a stored token (no failover: it is verified against the keys of
 * the service that issued it) and returns it as a lease. Refuses with `CLOCK_ROLLBACK` when the
 * clock was set back; a verified token moves the trusted time. A JWKS that cannot be loaded rejects as
 * the outage it is (`SERVICE_UNAVAILABLE`, `STANDBY_DORMANT`, ...), never `TOKEN_INVALID`.
 */
export async function verifyToken(
  context: ClientContext,
  token: string,
  options: VerifyOptions = {},
): Promise<Lease> {
  if (typeof token !== 'string') {
    throw new LicensingError('INVALID_ARGUMENT', 'verify() needs a token string');
  }
  let decoded: Record<string, unknown>;
  try {
    decoded = decodeJwt(token);
  } catch (cause) {
    throw new TokenInvalidError('malformed', 'Not a JWT', { cause });
  }
  const service =
    options.service ??
    (typeof decoded.iss === 'string' && decoded.iss.startsWith(context.standbyUrl)
      ? 'standby'
      : 'main');
  let item = options.item;
  if (item === undefined) {
    const granted = Object.keys(decoded).filter((key) => decoded[key] === true);
    if (granted.length !== 1) {
      throw new LicensingError(
        'INVALID_ARGUMENT',
        'verify() could not tell which item the token grants: pass options.item',
      );
    }
    item = granted[0]!;
  }
  await context.saved.ready();
  context.saved.assertClock();
  let lease: Lease;
  try {
    const claims = await context.verifier.verify(token, {
      service,
      item,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    lease = toLease(item, token, claims, service);
  } catch (error) {
    throw unwrapFailedAttempt(error);
  }
  await context.saved.trust(lease.claims.iat * 1000);
  return lease;
}
