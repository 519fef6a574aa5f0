import { LicensingError } from '../errors.js';
import { splitTokens } from '../internal/authz-wire.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import type { LicensingService } from '../types.js';
import type { ClientContext } from './client-context.js';

/**
 * One `/authz/.jwt` exchange (consume, renew or release): the tokens of the answer, exactly
 * `count` of them in request order. A 200 with another number of tokens is an outage of the
 * service (a proxy's page, a broken deployment), so failover applies.
 */
export async function requestTokens(
  context: ClientContext,
  service: LicensingService,
  query: string,
  count: number,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const { url, body } = await context.transport.request(
    service,
    { path: '/authz/.jwt', query, expect: 'jwt', signingKey: true },
    signal,
  );
  const tokens = splitTokens(body);
  if (!tokens || tokens.length !== count) {
    throw new FailedAttempt({
      ok: false,
      outage: true,
      reason: 'malformed-body',
      error: new LicensingError(
        'SERVICE_UNAVAILABLE',
        `the ${service} licensing service answered ${tokens?.length ?? 0} token(s) for ${count} (${url})`,
      ),
    });
  }
  return tokens;
}
