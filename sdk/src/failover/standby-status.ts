import type { LicensingTransport } from '../transport/licensing-transport.js';

/**
 * The standby's status check, `GET <standby>/enabled` with the caller's credentials (spec
 * "Application flow" step 4): true when it reports `true`. Throws the transport's
 * `FailedAttempt` when the standby cannot say.
 */
export async function isStandbyEnabled(
  transport: LicensingTransport,
  signal: AbortSignal,
): Promise<boolean> {
  const { json } = await transport.request('standby', { path: '/enabled', expect: 'json' }, signal);
  return json === true;
}
