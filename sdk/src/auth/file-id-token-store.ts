// Node-only: imported solely from sdk/src/node.ts (the `@standby-licensing/sdk/node` entry).
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IdTokenStore } from '../types.js';

interface StoredIdToken {
  version: 1;
  idToken: string;
  savedAt: string;
}

function isNodeError(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

/** Flushes a directory entry (the rename) to disk; not supported on every platform. */
async function syncDirectory(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open or fsync directories; the rename is still atomic there.
  } finally {
    await handle?.close();
  }
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
  if (typeof path !== 'string' || path.length === 0) {
    throw new TypeError('Expected `path` to be a non-empty string');
  }
  return {
    async load() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if (isNodeError(error, 'ENOENT')) return undefined;
        throw error;
      }
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
      const directory = dirname(path);
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const body: StoredIdToken = { version: 1, idToken: token, savedAt: new Date().toISOString() };
      const temporary = `${path}.${randomUUID()}.tmp`;
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(body)}\n`, 'utf8');
        // The umask may only remove bits, but be explicit in case the platform ignored the mode.
        await handle.chmod(0o600);
        await handle.sync();
      } catch (error) {
        await handle.close();
        await rm(temporary, { force: true });
        throw error;
      }
      await handle.close();
      try {
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      await syncDirectory(directory);
    },

    async clear() {
      await rm(path, { force: true });
    },
  };
}
