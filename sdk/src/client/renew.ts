import { decodeJwt } from 'jose';
import { LicensingError, TokenInvalidError } from '../errors.js';
import { buildRenewQuery } from '../internal/authz-wire.js';
import { isLease, readDenial, toLease } from '../lease/lease.js';
import type { CallOptions, DeniedItem, Lease } from '../types.js';
import { requestTokens } from './authz-exchange.js';
import { checkoutOn } from './checkout.js';
import type { ClientContext } from './client-context.js';

/** The error of an item main refused to renew or re-issue. */
export function deniedError(denial: DeniedItem): LicensingError {
  return new LicensingError('LICENSE_DENIED', `'${denial.item}' was denied: ${denial.code}`, {
    cause: denial,
  });
}

/**
 * `client.renew`: renews a lease under the same `leaseId` through the failover strategy. A lease
 * the standby issued is checked out anew when main serves (main never saw its id). Emits
 * `leaseRenewed`.
 */
export async function renew(
  context: ClientContext,
  lease: Lease,
  options: CallOptions = {},
): Promise<Lease> {
  if (!isLease(lease)) {
    throw new LicensingError('INVALID_ARGUMENT', 'renew() needs a lease returned by checkout()');
  }
  await context.saved.ready();
  context.saved.assertClock();
  const { lease: renewed, reissued } = await context.strategy.run(async (service, signal) => {
    if (service === 'main' && lease.servedBy === 'standby') {
      const fresh = await checkoutOn(context, service, [{ item: lease.item }], signal);
      const granted = fresh.leases[0];
      if (!granted) throw deniedError(fresh.denied[0]!);
      return { lease: granted, reissued: true };
    }
    const query = buildRenewQuery(lease.item, lease.leaseId, context.echoes);
    const [token] = (await requestTokens(context, service, query, 1, signal)) as [string];
    if (service === 'main') {
      let denial: DeniedItem | undefined;
      try {
        denial = readDenial(lease.item, decodeJwt(token));
      } catch (cause) {
        throw new TokenInvalidError('malformed', `main: the renewed token is not a JWT`, { cause });
      }
      if (denial) throw deniedError(denial);
    }
    const claims = await context.verifier.verify(token, {
      service,
      item: lease.item,
      ...(signal ? { signal } : {}),
    });
    return { lease: toLease(lease.item, token, claims, service), reissued: false };
  }, options.signal);
  await context.saved.remember([renewed], [lease.leaseId]);
  context.events.emit('leaseRenewed', { previous: lease, lease: renewed, reissued });
  return renewed;
}
