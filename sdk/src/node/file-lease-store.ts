// Node-only: imported solely from sdk/src/node.ts (the `@standby-licensing/sdk/node` entry).
import { rm } from 'node:fs/promises';
import { option } from '../internal/validate-option.js';
import type { LeaseStore, SavedLicensingState } from '../types.js';
import { readFileIfExists, writeFileAtomic } from './atomic-file.js';

/**
 * A {@link LeaseStore} in a file, for Node and Electron's main process: one JSON document,
 * written atomically (temporary file, fsync, rename) and owner-only (0o600; the directory is
 * created 0o700). A desktop app restarted during a total outage gets its leases back with
 * `client.restore()`.
 *
 * @param path The file, e.g. in the app's user-data directory.
 * @example
 * import { createFileLeaseStore } from '@standby-licensing/sdk/node';
 * const leaseStore = createFileLeaseStore(join(app.getPath('userData'), 'licensing.json'));
 */
export function createFileLeaseStore(path: string): LeaseStore {
  if (option.string('path', path) === undefined) {
    option.fail('path', 'Expected `path` to be a non-empty string');
  }
  return {
    async load() {
      const text = await readFileIfExists(path);
      return text === undefined || text.trim() === ''
        ? undefined
        : (JSON.parse(text) as SavedLicensingState);
    },
    async save(state) {
      await writeFileAtomic(path, `${JSON.stringify(state)}\n`);
    },
    async clear() {
      await rm(path, { force: true });
    },
  };
}
