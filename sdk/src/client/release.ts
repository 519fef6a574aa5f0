import { ApiResponseError, LicensingError } from '../errors.js';
import { buildReleaseQuery } from '../internal/authz-wire.js';
import { isLease } from '../lease/lease.js';
import { requestAuthz } from '../transport/authz-request.js';
import type { CallOptions, Lease } from '../types.js';
import { acceptFreshAnswer, learnServiceTime } from './accept-token.js';
import type { ClientContext } from './client-context.js';

/** Options of {@link release}. */
export interface ReleaseOptions extends CallOptions {
  /** Send the request with fetch's `keepalive` (a page being unloaded). Default false. */
  keepalive?: boolean;
}

/** True for a refusal in which a service says it does not know the lease (404). */
function unknownToService(error: unknown): boolean {
  return error instanceof ApiResponseError && error.code === 'NOT_FOUND';
}

/**
 * `client.release`: releases leases in one `/authz/.jwt?release&<leaseId>...` request through the
 * failover strategy, and verifies the answer as a signed token of that service (never a lease).
 * Release has no effect on the standby (docs/protocol.md "Release"), so this is best effort by
 * nature. The leases leave the lease store once a service answered the release (or said it does
 * not know them); a release that reached no service (offline, an outage, the time given to
 * `close()` running out) leaves them there, so the next `restore()` returns them.
 */
export async function release(
  context: ClientContext,
  leases: Lease | readonly Lease[],
  options: ReleaseOptions = {},
): Promise<void> {
  const list = (Array.isArray(leases) ? leases : [leases]) as readonly Lease[];
  if (list.length === 0) return;
  if (!list.every(isLease)) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      'release() got something that is not a lease. Pass leases returned by checkout(), renew() or restore().',
    );
  }
  const ids = [...new Set(list.map((lease) => lease.leaseId))];
  try {
    await context.strategy.run(async (service, signal) => {
      const answer = await requestAuthz(
        context.transport,
        service,
        buildReleaseQuery(ids),
        1,
        signal,
        { keepalive: options.keepalive === true },
      );
      const verified = await acceptFreshAnswer(context, service, answer.tokens[0]!, answer, signal);
      learnServiceTime(context, answer, [verified]);
    }, options.signal);
  } catch (error) {
    if (unknownToService(error)) await context.state.forget(ids);
    throw error;
  }
  await context.state.forget(ids);
}
