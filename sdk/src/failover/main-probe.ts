import { EXPECT_JSON } from '../transport/classify-outcome.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import type { LicensingTransport } from '../transport/licensing-transport.js';

/**
 * Strategy B's probe of the main service while on the standby: `GET <main>/.well-known/jwks.json`
 * without credentials (so no ID-token refresh while the identity provider may be down) and no
 * lease traffic. Any answer that is not an outage, even a 401, means main is reachable again.
 */
export async function isMainReachable(
  transport: LicensingTransport,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    await transport.request(
      'main',
      { path: '/.well-known/jwks.json', expect: EXPECT_JSON, authorize: false },
      signal,
    );
    return true;
  } catch (error) {
    if (error instanceof FailedAttempt) return !error.verdict.outage;
    throw error;
  }
}
