import { LicensingError } from '../errors.js';
import type { JwkSet, JwksLoader, LicensingService } from '../types.js';
import { FailedAttempt } from './failed-attempt.js';
import type { LicensingTransport } from './licensing-transport.js';

/**
 * The client's {@link JwksLoader}: `GET <service>/.well-known/jwks.json` with the call's
 * credentials, through the licensing transport. Any failure, a body without a `keys` array
 * included, throws a {@link FailedAttempt} marked as an outage of that service (DECISIONS: a JWKS
 * load failure is an outage, so failover applies).
 */
export function createJwksLoader(transport: LicensingTransport): JwksLoader {
  return async (service: LicensingService, signal?: AbortSignal): Promise<JwkSet> => {
    const { url, json } = await transport.request(
      service,
      { path: '/.well-known/jwks.json', expect: 'json' },
      signal,
    );
    const jwks = json as Partial<JwkSet> | null | undefined;
    if (jwks === null || typeof jwks !== 'object' || !Array.isArray(jwks.keys)) {
      throw new FailedAttempt({
        ok: false,
        outage: true,
        reason: 'malformed-body',
        error: new LicensingError(
          'SERVICE_UNAVAILABLE',
          `the ${service} licensing service answered its JWKS without a keys array (${url})`,
        ),
      });
    }
    return jwks as JwkSet;
  };
}
