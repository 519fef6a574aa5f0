import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { DocumentCheck } from './document-check.js';

/**
 * A data file that exists but cannot be used: not JSON, the wrong shape, or contents that do not
 * fit (a key that does not parse). The server refuses to start rather than reset or replace it.
 */
export class DataFileError extends Error {
  override readonly name = 'DataFileError';
  /** Path of the file (or `memory:<name>` without a data dir). */
  readonly file: string;
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(
      `${file}: ${problem}. The server does not start on a damaged data file: restore it, or remove it to start that part afresh`,
      options,
    );
    this.file = file;
  }
}

/**
 * Where the services keep keys and state: JSON documents by name. With a data dir each write is
 * atomic and durable (temp file, fsync, rename, fsync of the folder), so a crash mid-write leaves
 * the previous version intact. Without one, documents live in memory only.
 */
export interface StateStore {
  /** The folder documents are written to, or undefined for memory only. */
  readonly dataDir: string | undefined;
  /**
   * The document `name`, passed through `check` (shape and contents), or undefined when there is
   * none. Rejects with a {@link DataFileError} naming the file when it is not JSON or `check`
   * refuses it.
   */
  read<T>(name: string, check: DocumentCheck<T>): Promise<T | undefined>;
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
    async read<T>(name: string, check: DocumentCheck<T>) {
      const text = docs.get(name);
      return text === undefined ? undefined : checked(`memory:${name}`, text, check);
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
    async read<T>(name: string, check: DocumentCheck<T>) {
      const file = join(dataDir, `${name}.json`);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new DataFileError(file, `cannot be read (${(err as Error).message})`, { cause: err });
      }
      return checked(file, text, check);
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

function checked<T>(file: string, text: string, check: DocumentCheck<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new DataFileError(file, 'is not JSON', { cause: err });
  }
  try {
    return check(value);
  } catch (err) {
    throw new DataFileError(file, (err as Error).message, { cause: err });
  }
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
