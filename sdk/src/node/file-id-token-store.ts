// Node-only: imported solely from sdk/src/node.ts (the `@standby-licensing/sdk/node` entry).
import { rm } from 'node:fs/promises';
import { option } from '../internal/validate-option.js';
import type { IdTokenStore } from '../types.js';
import { readFileIfExists, writeFileAtomic } from './atomic-file.js';

interface StoredIdToken {
  version: 1;
  idToken: string;
  savedAt: string;
}

/**
 * An {@link IdTokenStore} in a file, for Node (and Electron's main process). Writes are atomic
 * (temporary file in the same directory, fsync, rename) and owner-only (mode 0o600; the
 * directory is created with 0o700 when missing). A missing, empty or corrupt file loads as "no
 * token", so a damaged file never blocks startup.
 *
 * @param path The file to keep the token in, e.g. in the app's user-data directory.
 * @example
 * import { createFileIdTokenStore } from '@standby-licensing/sdk/node';
 * const store = createFileIdTokenStore(join(app.getPath('userData'), 'id-token.json'));
 */
export function createFileIdTokenStore(path: string): IdTokenStore {
  if (option.string('path', path) === undefined) {
    option.fail('path', 'Expected `path` to be a non-empty string');
  }
  return {
    async load() {
      const text = await readFileIfExists(path);
      if (text === undefined) return undefined;
      try {
        const stored = JSON.parse(text) as Partial<StoredIdToken> | null;
        return typeof stored?.idToken === 'string' && stored.idToken.length > 0
          ? stored.idToken
          : undefined;
      } catch {
        return undefined;
      }
    },

    async save(token) {
      const body: StoredIdToken = { version: 1, idToken: token, savedAt: new Date().toISOString() };
      await writeFileAtomic(path, `${JSON.stringify(body)}\n`);
    },

    async clear() {
      await rm(path, { force: true });
    },
  };
}
