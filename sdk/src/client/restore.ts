import { TokenInvalidError } from '../errors.js';
import { toLease } from '../lease/lease.js';
import type { CallOptions, Lease } from '../types.js';
import type { ClientContext } from './client-context.js';
import type { RestoreResult } from './licensing-client.js';

/**
 * `client.restore`: the saved leases that still verify against the saved JWK sets and the
 * embedded roots (no network). Leases that no longer verify (expired, a rotated key) leave the
 * store; a lease whose service's JWK set was never saved stays for a later online call.
 */
export async function restore(
  context: ClientContext,
  options: CallOptions = {},
): Promise<RestoreResult> {
  const { saved, offlineVerifier } = context;
  await saved.ready();
  saved.assertClock();
  const leases: Lease[] = [];
  const invalid: string[] = [];
  for (const entry of saved.leases()) {
    options.signal?.throwIfAborted();
    try {
      const claims = await offlineVerifier.verify(entry.token, {
        service: entry.servedBy,
        item: entry.item,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      leases.push(toLease(entry.item, entry.token, claims, entry.servedBy));
    } catch (error) {
      if (error instanceof TokenInvalidError) {
        invalid.push(entry.token);
      } else if (options.signal?.aborted) {
        throw error;
      }
    }
  }
  if (invalid.length > 0) await saved.discard(invalid);
  return { leases };
}
