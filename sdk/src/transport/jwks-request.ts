import type { JwkSet, LicensingService } from '../types.js';
import { EXPECT_JWKS } from './classify-outcome.js';
import type { LicensingTransport } from './licensing-transport.js';

/** A JWK set answer: the set, and the services' time it showed. */
export interface JwksAnswer {
  jwks: JwkSet;
  /** From the answer's `Date` header, in ms, when readable. */
  serviceTime: number | undefined;
}

/**
 * `GET <service>/.well-known/jwks.json` with the call's credentials. Any failure, a body without
 * a `keys` array included, throws the transport's `FailedAttempt` marked as an outage of that
 * service (a JWKS load failure is an outage, so failover applies: docs/trust-model.md).
 *
 * @example
 * const { jwks } = await requestJwks(transport, 'standby', signal);
 */
export async function requestJwks(
  transport: LicensingTransport,
  service: LicensingService,
  signal?: AbortSignal,
): Promise<JwksAnswer> {
  const { value, serviceTime } = await transport.request(
    service,
    { path: '/.well-known/jwks.json', expect: EXPECT_JWKS },
    signal,
  );
  return { jwks: value as JwkSet, serviceTime };
}
