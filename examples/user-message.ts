/**
 * user-message.ts: what an app shows its user for a licensing error, shared by the React and the
 * Electron-shaped examples (the table "What the app shows its user" in docs/app-integration.md).
 *
 * Not a scenario of its own: imported by examples/react/license-status.tsx and
 * examples/electron/renderer-status.ts. Technical detail (the error's message, its cause) goes to
 * the app's log; the user gets one sentence and what they can do.
 */
import type { LicensingError } from '@standby-licensing/sdk';

const CANNOT_CHECK =
  'Your license could not be checked. Connect to the internet so the app can renew it.';
const SIGN_IN_AGAIN = 'Your sign-in has expired. Sign in again to keep your license.';
const NO_LICENSE = 'Your account has no license for this feature. Contact your administrator.';

/**
 * The sentence for the user, by the error's `code` and `reason`, or undefined for an error that
 * is a bug of the app (`INVALID_ARGUMENT`, `CLIENT_CLOSED`, `FEED_CURSOR_REPEATED`): log those.
 */
export function userMessage(error: Pick<LicensingError, 'code' | 'reason'>): string | undefined {
  const { code, reason } = error;
  switch (code) {
    case 'SERVICE_UNAVAILABLE':
      if (reason === 'proxy' || reason === 'tls') {
        return 'The network is blocking the licensing service. Check your proxy or network settings.';
      }
      if (reason === 'id-token-provider-failed' || reason === 'id-token-provider-timeout') {
        return 'You are not signed in, and the sign-in service cannot be reached. Try again later.';
      }
      return 'The licensing service cannot be reached. Licensed features keep working until your license expires.';
    case 'UNAUTHORIZED':
    case 'ID_TOKEN_EXPIRED':
      return SIGN_IN_AGAIN;
    case 'STANDBY_DORMANT':
      return 'The licensing service is down and its backup is not switched on yet. Try again later.';
    case 'LICENSE_DENIED':
    case 'FORBIDDEN':
      return NO_LICENSE;
    case 'TOKEN_INVALID':
      return reason === 'hardware'
        ? 'This license belongs to another computer. Sign in on this computer to get one.'
        : CANNOT_CHECK;
    case 'CLOCK_ROLLBACK':
      return "Your computer's clock is wrong. Set it to the correct time and restart the app.";
    case 'LEASE_STORE_INVALID':
      return reason === 'unreadable'
        ? 'Your license could not be read from this computer. Connect to the internet so the app can renew it.'
        : CANNOT_CHECK;
    case 'NOT_FOUND':
    case 'REQUEST_REJECTED':
      return 'Licensing is not working right now. Try again later; if it persists, contact support.';
    default:
      return undefined;
  }
}
