/**
 * user-message.ts: what an app shows its user for a licensing error, shared by the React and the
 * Electron-shaped examples (the table "What the app shows its user" in docs/app-integration.md).
 *
 * Not a scenario of its own: imported by examples/react/license-status.tsx and
 * examples/electron/renderer-status.ts. Technical detail (the error's message, its cause) goes to
 * the app's log; the user gets one sentence and what they can do.
 */
import type { LicensingError } from '@standby-licensing/sdk';

/** The sentence for the user, by the error's `code` (and `reason` where it matters). */
export function userMessage(error: Pick<LicensingError, 'code' | 'reason'>): string {
  switch (error.code) {
    case 'SERVICE_UNAVAILABLE':
      return error.reason === 'proxy' || error.reason === 'tls'
        ? 'The network is blocking the licensing service. Check your proxy or network settings.'
        : 'The licensing service cannot be reached. Licensed features keep working until your license expires.';
    case 'STANDBY_DORMANT':
      return 'The licensing service is down and its backup is not switched on yet. Try again later.';
    case 'UNAUTHORIZED':
    case 'ID_TOKEN_EXPIRED':
      return 'Your sign-in has expired. Sign in again to keep your license.';
    case 'LICENSE_DENIED':
    case 'FORBIDDEN':
      return 'Your account has no license for this feature. Contact your administrator.';
    case 'CLOCK_ROLLBACK':
      return "Your computer's clock is wrong. Set it to the correct time and restart the app.";
    case 'TOKEN_INVALID':
    case 'LEASE_STORE_INVALID':
      return 'Your license could not be checked. Connect to the internet so the app can renew it.';
    default:
      return 'Licensing is not working right now. Try again later; if it persists, contact support.';
  }
}
