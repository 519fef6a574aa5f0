import type { JwkSet, LicensingService } from '../types.js';
import { classifyOutcome, EXPECT_JWKS, type FailureVerdict } from './classify-outcome.js';
import { FailedAttempt } from './failed-attempt.js';
import type { LicensingTransport } from './licensing-transport.js';

/** Path of a service's JWK set under its base URL. */
export const JWKS_PATH = '/.well-known/jwks.json';

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
    { path: JWKS_PATH, expect: EXPECT_JWKS },
    signal,
  );
  return { jwks: value as JwkSet, serviceTime };
}

/**
 * The outage of a JWK set lookup that overran the attempt's budget (reading the set and checking
 * the key it was for): a timed-out attempt of `service`, so the call fails over as for any.
 *
 * @example
 * createServiceKeys({ ..., timeoutMs, timeoutError: () => jwksTimeout('main', mainUrl, timeoutMs) });
 */
export function jwksTimeout(
  service: LicensingService,
  baseUrl: string,
  timeoutMs: number,
): FailedAttempt {
  const url = `${baseUrl}${JWKS_PATH}`;
  const verdict = classifyOutcome(
    {
      kind: 'error',
      url,
      error: new Error('the JWK set was not read and checked in time'),
      timedOut: true,
    },
    { service, expect: EXPECT_JWKS, now: Date.now(), timeoutMs },
  ) as FailureVerdict;
  return new FailedAttempt(verdict);
}
