/**
 * renderer-status.ts: what the main process tells its windows about the license (part of the
 * Electron-shaped example; see licensing-main.ts).
 *
 * The renderer learns whether each item is licensed, by which service, until when, and one
 * sentence about the last error: never a token, a lease id or a claim. A window that shows web
 * content, or that a bug lets a script into, can then leak nothing a user could replay.
 */
import type { LicensingError, LicensingService, LicensingStatus } from '@standby-licensing/sdk';
import { userMessage } from '../user-message.js';

/** One item as a window sees it. */
export interface RendererItem {
  item: string;
  servedBy: LicensingService;
  /** End of the lease, in ms since the epoch (local clock). */
  expiresAt: number;
}

/** The license state as a window sees it: no token, no lease id, no claims. */
export interface RendererStatus {
  activeService: LicensingService;
  online: boolean;
  items: RendererItem[];
  /** The last error: its code (to branch on) and the sentence for the user, when it has one. */
  error?: { code: string; message?: string };
}

function describeError(error: LicensingError): { code: string; message?: string } {
  const message = userMessage(error);
  return message === undefined ? { code: error.code } : { code: error.code, message };
}

/** Picks what a window may know from the client's status. */
export function toRendererStatus(status: LicensingStatus): RendererStatus {
  return {
    activeService: status.activeService,
    online: status.online,
    items: status.leases.map(({ item, servedBy, expiresAt }) => ({ item, servedBy, expiresAt })),
    ...(status.lastError ? { error: describeError(status.lastError) } : {}),
  };
}
