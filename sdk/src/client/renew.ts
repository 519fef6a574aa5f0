import { LicensingError } from '../errors.js';
import { buildRenewQuery } from '../internal/authz-wire.js';
import { isLease, readDenial, toLease } from '../lease/lease.js';
import { readLeaseToken } from '../lease/lease-token.js';
import { requestAuthz } from '../transport/authz-request.js';
import type { CallOptions, DeniedItem, Lease } from '../types.js';
import { acceptFreshAnswer, acceptFreshLease, learnServiceTime } from './accept-token.js';
import { checkoutOn } from './checkout.js';
import type { ClientContext } from './client-context.js';

/** The error of an item main refused to renew or re-issue. */
export function deniedError(denial: DeniedItem): LicensingError {
  return new LicensingError(
    'LICENSE_DENIED',
    `'${denial.item}' was denied: ${denial.code}. Check the user's license for ${denial.item} on the main service.`,
    { cause: denial },
  );
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
    throw new LicensingError(
      'INVALID_ARGUMENT',
      'renew() got something that is not a lease. Pass a lease returned by checkout(), renew() or restore().',
    );
  }
  await context.state.load();
  const { lease: renewed, reissued } = await context.strategy.run(async (service, signal) => {
    if (service === 'main' && lease.servedBy === 'standby') {
      const fresh = await checkoutOn(context, service, [{ item: lease.item }], signal);
      const granted = fresh.leases[0];
      if (!granted) throw deniedError(fresh.denied[0]!);
      return { lease: granted, reissued: true };
    }
    const query = buildRenewQuery(lease.item, lease.leaseId, context.echoes);
    const answer = await requestAuthz(context.transport, service, query, 1, signal);
    const token = readLeaseToken(answer.tokens[0]);
    const denial: DeniedItem | undefined =
      service === 'main' ? readDenial(lease.item, token.claims) : undefined;
    if (denial) {
      learnServiceTime(context, answer, [
        await acceptFreshAnswer(context, service, token, answer, signal),
      ]);
      throw deniedError(denial);
    }
    const claims = await acceptFreshLease(context, service, token, lease.item, answer, signal);
    learnServiceTime(context, answer, [claims]);
    return {
      lease: toLease(lease.item, token.token, claims, service, context.clock.offsetMs),
      reissued: false,
    };
  }, options.signal);
  await context.state.remember([renewed], [lease.leaseId]);
  context.events.emit('leaseRenewed', { previous: lease, lease: renewed, reissued });
  return renewed;
}
