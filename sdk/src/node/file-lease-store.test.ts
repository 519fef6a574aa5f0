import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SavedLicensingState } from '../types.js';
import { createFileLeaseStore } from './file-lease-store.js';

const posix = process.platform !== 'win32';
const state: SavedLicensingState = {
  version: 1,
  leases: [{ item: 'A', token: 'a.b.c', servedBy: 'standby' }],
  jwks: { standby: { keys: [] } },
  trustedTime: 1,
};

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lease-store-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

describe('createFileLeaseStore', () => {
  it('round-trips the state in an owner-only file, leaving no temporary file', async () => {
    const path = join(folder, 'app', 'licensing.json');
    const store = createFileLeaseStore(path);
    expect(await store.load()).toBeUndefined();
    await store.save(state);
    expect(await createFileLeaseStore(path).load()).toEqual(state);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(state);
    if (posix) {
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(join(folder, 'app'))).mode & 0o777).toBe(0o700);
    }
    expect(await readdir(join(folder, 'app'))).toEqual(['licensing.json']);
    await store.clear();
    expect(await store.load()).toBeUndefined();
  });

  it('loads an empty file as nothing and rejects a corrupt one (the client then starts empty)', async () => {
    const path = join(folder, 'odd.json');
    await writeFile(path, '');
    expect(await createFileLeaseStore(path).load()).toBeUndefined();
    await writeFile(path, '{ torn');
    await expect(createFileLeaseStore(path).load()).rejects.toThrow(SyntaxError);
  });

  it('refuses an empty path', () => {
    expect(() => createFileLeaseStore('')).toThrow(TypeError);
  });
});
