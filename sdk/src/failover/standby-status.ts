import { EXPECT_BOOLEAN } from '../transport/classify-outcome.js';
import type { LicensingTransport } from '../transport/licensing-transport.js';

/**
 * The standby's status check, `GET <standby>/enabled` with the caller's credentials (spec
 * "Application flow" step 4): true when it reports `true`. A body other than a JSON boolean is an
 * outage of the standby. Throws the transport's
 * `FailedAttempt` when the standby cannot say.
 */
export async function isStandbyEnabled(
  transport: LicensingTransport,
  signal: AbortSignal,
): Promise<boolean> {
  const { value } = await transport.request(
    'standby',
    { path: '/enabled', expect: EXPECT_BOOLEAN },
    signal,
  );
  return value === true;
}
