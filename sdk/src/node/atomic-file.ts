// Node-only: owner-only files written atomically, for the file stores behind the `/node` entry.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

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
 * Writes `text` to `path` atomically and owner-only: a temporary file in the same directory
 * (mode 0o600), fsync, rename over the target, fsync of the directory where the platform allows.
 * A crash leaves the old or the new content, never a torn file. Creates the directory (0o700).
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomUUID()}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
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
}

/** The file's text, or undefined when it does not exist. */
export async function readFileIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isNodeError(error, 'ENOENT')) return undefined;
    throw error;
  }
}
