import { TokenInvalidError } from '../errors.js';
import { toLease } from '../lease/lease.js';
import { FINAL_REFUSALS } from '../lease/verify-lease.js';
import type { CallOptions, Lease } from '../types.js';
import { acceptKeptLease } from './accept-token.js';
import type { ClientContext } from './client-context.js';
import type { RestoreResult } from './licensing-client.js';

/**
 * `client.restore`: the saved leases that are leases still (docs/trust-model.md), checked
 * against the saved keys and the embedded roots on the app's clock corrected by the last offset
 * learnt online, with no network call. Rejects with `LEASE_STORE_INVALID` for a store that exists
 * but cannot be trusted and with `CLOCK_ROLLBACK` for a clock set back. A saved lease leaves the
 * store only when refused for its signature, form or item (or, on the next write, once expired on
 * the time mark), never because its key is missing or the clock disagrees.
 */
export async function restore(
  context: ClientContext,
  options: CallOptions = {},
): Promise<RestoreResult> {
  const status = await context.state.load();
  if (!status.trusted) throw status.error;
  context.clock.assertNotRolledBack();
  const leases: Lease[] = [];
  const refused: string[] = [];
  for (const entry of context.state.leases()) {
    options.signal?.throwIfAborted();
    try {
      const { claims } = await acceptKeptLease(
        context,
        entry.servedBy,
        entry.token,
        entry.item,
        false,
      );
      leases.push(toLease(entry.item, entry.token, claims, entry.servedBy, context.clock.offsetMs));
    } catch (error) {
      if (!(error instanceof TokenInvalidError)) throw error;
      if (FINAL_REFUSALS.has(error.reason)) refused.push(entry.token);
    }
  }
  if (refused.length > 0) await context.state.discard(refused);
  else if (leases.length > 0) await context.state.persist();
  return { leases };
}
