// Node-only: imported solely from sdk/src/node.ts (the `@standby-licensing/sdk/node` entry).
import { rm } from 'node:fs/promises';
import { resolveSealing, sealText, unsealText } from '../internal/sealed-text.js';
import { option } from '../internal/validate-option.js';
import type { LeaseStore, LeaseStoreSealing } from '../types.js';
import { readFileIfExists, writeFileAtomic } from './atomic-file.js';

/**
 * A {@link LeaseStore} in a file, for Node and Electron's main process: one JSON document,
 * written atomically (temporary file, fsync, rename) and owner-only (0o600; the directory is
 * created 0o700). A desktop app restarted during a total outage gets its leases back with
 * `client.restore()`. Without a seal the file is only as trustworthy as its permissions: give
 * `seal` and `unseal` (Electron's `safeStorage.encryptString`/`decryptString`, or an HMAC whose
 * key lives in the OS keychain) to make every edit detectable (`LEASE_STORE_INVALID`, `sealed`).
 *
 * @param path The file, e.g. in the app's user-data directory.
 * @param sealing `{ seal, unseal }`, both or neither. Default: none.
 * @example
 * import { createFileLeaseStore } from '@standby-licensing/sdk/node';
 * const leaseStore = createFileLeaseStore(join(app.getPath('userData'), 'licensing.json'), {
 *   seal: (text) => safeStorage.encryptString(text).toString('base64'),
 *   unseal: (text) => safeStorage.decryptString(Buffer.from(text, 'base64')),
 * });
 */
export function createFileLeaseStore(path: string, sealing?: LeaseStoreSealing): LeaseStore {
  if (option.string('path', path) === undefined) {
    option.fail('path', 'Expected `path` to be a non-empty string');
  }
  const seal = resolveSealing('sealing', sealing);
  return {
    async load() {
      const text = await readFileIfExists(path);
      if (text === undefined || text.trim() === '') return undefined;
      // The line end this store adds; anything else is the stored text's own.
      return unsealText(seal, text.endsWith('\n') ? text.slice(0, -1) : text);
    },
    async save(text) {
      await writeFileAtomic(path, `${await sealText(seal, text)}\n`);
    },
    async clear() {
      await rm(path, { force: true });
    },
  };
}
