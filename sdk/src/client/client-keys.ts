// The client's key source of each service: the roots that vouch for it, its JWK set loaded
// through the transport (whose `Date` the clock may believe, see the clock), the attempt's budget
// over reading the set and checking the key a token needs.
import type { LicensingEventHub } from '../client-hooks.js';
import type { ServiceKeys } from '../lease/service-keys.js';
import { createServiceKeys } from '../lease/service-keys.js';
import type { TrustedClock } from '../lease/trusted-clock.js';
import { anchorsFor, type ParsedRoot } from '../lease/trusted-roots.js';
import { jwksTimeout, requestJwks } from '../transport/jwks-request.js';
import type { LicensingTransport } from '../transport/licensing-transport.js';
import type { LicensingService } from '../types.js';
import { embedHint } from './embed-hint.js';

/** What {@link createClientKeys} needs, passed down from the client. */
export interface ClientKeysDeps {
  transport: LicensingTransport;
  clock: TrustedClock;
  /** Every embedded root; each service gets those that vouch for it. */
  anchors: readonly ParsedRoot[];
  mainUrl: string;
  standbyUrl: string;
  /** `trust.unknownKidCooldownMs`. */
  cooldownMs: number;
  /** `failover.attemptTimeoutMs`: the budget of a lookup that fetches. */
  attemptTimeoutMs: number;
  /** Told of every JWK set fetched (`keysFetched`). */
  events: LicensingEventHub;
}

/**
 * Creates the key sources of both services.
 *
 * @example
 * const keys = createClientKeys({ transport, clock, anchors, mainUrl, standbyUrl, cooldownMs, attemptTimeoutMs, events });
 * const key = await keys.standby.keyFor(kid, { signal });
 */
export function createClientKeys(deps: ClientKeysDeps): Record<LicensingService, ServiceKeys> {
  const { transport, clock, attemptTimeoutMs } = deps;
  const keysOf = (service: LicensingService) =>
    createServiceKeys({
      service,
      anchors: anchorsFor(deps.anchors, service),
      cooldownMs: deps.cooldownMs,
      now: clock.local,
      embedHint: embedHint(service, deps),
      load: async (signal) => {
        const { jwks, serviceTime } = await requestJwks(transport, service, signal);
        // A JWK set proves nothing about the time: believed only where it agrees (the clock).
        if (serviceTime !== undefined) clock.observeUnsigned(serviceTime);
        const keyIds = jwks.keys.map((key) => key.kid).filter((kid) => typeof kid === 'string');
        deps.events.emit('keysFetched', { service, keyIds });
        return jwks;
      },
      timeoutMs: attemptTimeoutMs,
      timeoutError: () =>
        jwksTimeout(service, service === 'main' ? deps.mainUrl : deps.standbyUrl, attemptTimeoutMs),
    });
  return { main: keysOf('main'), standby: keysOf('standby') };
}
