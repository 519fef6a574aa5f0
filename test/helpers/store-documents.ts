// Test helper: read and write what a lease store holds, as a user who edits the file would.
import { readFile, writeFile } from 'node:fs/promises';
import type { LeaseStore, SavedLicensingState } from '../../sdk/src/types.js';

/** The document a store holds (throws when it holds none). */
export async function readStore(store: LeaseStore): Promise<SavedLicensingState> {
  const text = await store.load();
  if (text === undefined) throw new Error('the lease store is empty');
  return JSON.parse(text) as SavedLicensingState;
}

/** Replaces what a store holds with `document` (any JSON value) or raw `text`. */
export async function writeStore(store: LeaseStore, document: unknown): Promise<void> {
  await store.save(typeof document === 'string' ? document : JSON.stringify(document));
}

/** Applies `edit` to the document a store holds. */
export async function editStore(
  store: LeaseStore,
  edit: (document: SavedLicensingState) => unknown,
): Promise<void> {
  const document = await readStore(store);
  const edited = edit(document);
  await writeStore(store, edited === undefined ? document : edited);
}

/** The document a lease store file holds (a UTF-8 BOM and the trailing line end allowed). */
export async function readStoreFile(path: string): Promise<SavedLicensingState> {
  const text = await readFile(path, 'utf8');
  return JSON.parse(text.replace(/^\uFEFF/, '')) as SavedLicensingState;
}

/** Replaces a lease store file's content with `document` (any JSON value) or raw `text`. */
export async function writeStoreFile(path: string, document: unknown): Promise<void> {
  await writeFile(path, `${typeof document === 'string' ? document : JSON.stringify(document)}\n`);
}

/** Applies `edit` to the document a lease store file holds, as a user with an editor would. */
export async function editStoreFile(
  path: string,
  edit: (document: SavedLicensingState) => unknown,
): Promise<void> {
  const document = await readStoreFile(path);
  const edited = edit(document);
  await writeStoreFile(path, edited === undefined ? document : edited);
}

/**
 * The JSON text of `document` with its time mark written as the literal `number` (e.g. `1e999`,
 * which no `JSON.stringify` writes).
 */
export function withTimeMarkLiteral(document: SavedLicensingState, number: string): string {
  const marker = -123_456_789;
  return JSON.stringify({ ...document, timeMark: marker }).replace(`:${marker}`, `:${number}`);
}

/** The `iat` of a token, in ms (read without any check), or 0. */
function issuedAtMs(token: string): number {
  try {
    const iat = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).iat;
    return typeof iat === 'number' ? iat * 1000 : 0;
  } catch {
    return 0;
  }
}

/**
 * Plants `leases` in `document` (replacing what it held) as an adversary who knows the rules
 * would: the time mark is raised to cover every planted token's `iat`, so the store is not
 * refused as edited for that alone.
 */
export function plantLeases(
  document: SavedLicensingState,
  leases: SavedLicensingState['leases'],
): SavedLicensingState {
  const timeMark = Math.max(document.timeMark, ...leases.map((lease) => issuedAtMs(lease.token)));
  return { ...document, leases, timeMark };
}
