// Test helper: read and write what a lease store holds, as a user who edits the file would.
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
