import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where the services keep keys and state: JSON documents by name. With a data dir each write is
 * atomic and durable (temp file, fsync, rename, fsync of the folder), so a crash mid-write leaves
 * the previous version intact. Without one, documents live in memory only.
 */
export interface StateStore {
  /** The folder documents are written to, or undefined for memory only. */
  readonly dataDir: string | undefined;
  read<T>(name: string): Promise<T | undefined>;
  write(name: string, value: unknown): Promise<void>;
}

/** Creates a store over `dataDir` (created if missing), or in memory when it is undefined. */
export async function createStateStore(dataDir?: string): Promise<StateStore> {
  if (dataDir === undefined) return createMemoryStore();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  return createFileStore(dataDir);
}

function createMemoryStore(): StateStore {
  const docs = new Map<string, string>();
  return {
    dataDir: undefined,
    async read<T>(name: string) {
      const text = docs.get(name);
      return text === undefined ? undefined : (JSON.parse(text) as T);
    },
    async write(name, value) {
      docs.set(name, JSON.stringify(value));
    },
  };
}

function createFileStore(dataDir: string): StateStore {
  // Writes to one document are serialised so two renames never race.
  const queues = new Map<string, Promise<void>>();
  let sequence = 0;
  return {
    dataDir,
    async read<T>(name: string) {
      try {
        return JSON.parse(await readFile(join(dataDir, `${name}.json`), 'utf8')) as T;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    write(name, value) {
      const text = `${JSON.stringify(value, null, 2)}\n`;
      const previous = queues.get(name) ?? Promise.resolve();
      const next = previous.then(() => writeAtomic(dataDir, name, text, ++sequence));
      queues.set(
        name,
        next.catch(() => undefined),
      );
      return next;
    },
  };
}

async function writeAtomic(
  dataDir: string,
  name: string,
  text: string,
  seq: number,
): Promise<void> {
  const target = join(dataDir, `${name}.json`);
  const temp = join(dataDir, `.${name}.${process.pid}.${seq}.tmp`);
  const file = await open(temp, 'w', 0o600);
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, target);
  const dir = await open(dataDir, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
