import { abortable } from '../internal/abortable.js';
import type { ServiceKeys } from '../lease/service-keys.js';
import { requestJwks } from '../transport/jwks-request.js';
import type { LicensingService } from '../types.js';
import type { ClientContext } from './client-context.js';

/**
 * The key source of `service`, holding a trusted key for `kid` when the service publishes one:
 * a `kid` it lacks is fetched (`GET /.well-known/jwks.json`, one fetch per service at a time,
 * shared by every call waiting for it) unless a fetch within the cooldown already lacked it. New
 * trusted keys are saved in the lease store, and the clock catches up with the services' time the
 * answer showed. A failed fetch throws the transport's outage.
 */
export async function keysWithKid(
  context: ClientContext,
  service: LicensingService,
  kid: string,
  signal: AbortSignal | undefined,
): Promise<ServiceKeys> {
  const keys = context.keys[service];
  if (keys.find(kid) || (await keys.trustKept(kid)) || !keys.mayFetch(kid, context.clock.local())) {
    return keys;
  }
  let fetch = context.jwksFetches.get(service);
  if (!fetch) {
    // Not tied to one caller's signal: others wait for it too (the attempt timeout bounds it).
    fetch = fetchKeys(context, service).finally(() => context.jwksFetches.delete(service));
    context.jwksFetches.set(service, fetch);
  }
  await abortable(fetch, signal);
  keys.fetchedFor(kid, context.clock.local());
  return keys;
}

async function fetchKeys(context: ClientContext, service: LicensingService): Promise<void> {
  const { jwks, serviceTime } = await requestJwks(context.transport, service);
  // The services' time this answer showed: a kept token (verify) is not judged on a clock set
  // back while the lease store that held the time mark was removed or damaged.
  if (serviceTime !== undefined) context.clock.catchUp(serviceTime);
  if (await context.keys[service].merge(jwks, context.clock.local())) {
    await context.state.persist();
  }
}
