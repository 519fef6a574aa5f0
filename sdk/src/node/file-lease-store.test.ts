import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacSealing } from '../../test/helpers/sealing.js';
import { InvalidOptionError } from '../errors.js';
import { createFileLeaseStore } from './file-lease-store.js';

const posix = process.platform !== 'win32';
const TEXT = '{"version":2,"leases":[],"keys":{"main":[],"standby":[]},"timeMark":1,"offsetMs":0}';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lease-store-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

describe('createFileLeaseStore', () => {
  it('round-trips the text in an owner-only file, leaving no temporary file', async () => {
    const path = join(folder, 'app', 'licensing.json');
    const store = createFileLeaseStore(path);
    expect(await store.load()).toBeUndefined();
    await store.save(TEXT);
    expect(await createFileLeaseStore(path).load()).toBe(TEXT);
    expect(await readFile(path, 'utf8')).toBe(`${TEXT}\n`);
    if (posix) {
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(join(folder, 'app'))).mode & 0o777).toBe(0o700);
    }
    expect(await readdir(join(folder, 'app'))).toEqual(['licensing.json']);
    await store.clear();
    expect(await store.load()).toBeUndefined();
  });

  it('loads an empty file as nothing and hands any other text to the client to judge', async () => {
    const path = join(folder, 'odd.json');
    await writeFile(path, '');
    expect(await createFileLeaseStore(path).load()).toBeUndefined();
    await writeFile(path, '{ torn');
    expect(await createFileLeaseStore(path).load()).toBe('{ torn');
  });

  it('lets an I/O error through, so the client never overwrites what it could not read', async () => {
    const path = join(folder, 'a-directory');
    await rm(path, { recursive: true, force: true });
    await (await import('node:fs/promises')).mkdir(path);
    await expect(createFileLeaseStore(path).load()).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('seals the file and refuses an edit of it with LEASE_STORE_INVALID sealed', async () => {
    const path = join(folder, 'sealed.json');
    const store = createFileLeaseStore(path, hmacSealing('keychain-secret'));
    await store.save(TEXT);
    expect(await store.load()).toBe(TEXT);
    const onDisk = await readFile(path, 'utf8');
    await writeFile(path, onDisk.replace('"timeMark":1', '"timeMark":0'));
    await expect(store.load()).rejects.toMatchObject({
      code: 'LEASE_STORE_INVALID',
      reason: 'sealed',
    });
  });

  it('refuses an empty path', () => {
    expect(() => createFileLeaseStore('')).toThrow(InvalidOptionError);
  });
});
