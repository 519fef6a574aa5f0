import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdTokenSource } from '../auth/id-token-source.js';
import { InvalidOptionError } from '../errors.js';
import { createFileIdTokenStore } from './file-id-token-store.js';

const posix = process.platform !== 'win32';
const T0 = Date.UTC(2030, 0, 1);
const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const idToken = (expMs: number) =>
  `${segment({ alg: 'RS256' })}.${segment({ sub: 'u', exp: expMs / 1000 })}.c2ln`;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'id-token-store-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createFileIdTokenStore', () => {
  it('round-trips a token and leaves no temporary file behind', async () => {
    const dir = join(root, 'round-trip', 'nested');
    const path = join(dir, 'token.json');
    const store = createFileIdTokenStore(path);
    await expect(store.load()).resolves.toBeUndefined();
    await store.save('first');
    await store.save('second');
    await expect(store.load()).resolves.toBe('second');
    await expect(createFileIdTokenStore(path).load()).resolves.toBe('second');
    expect(await readdir(dir)).toEqual(['token.json']);
    await store.clear();
    await expect(store.load()).resolves.toBeUndefined();
    await store.clear();
  });

  it.runIf(posix)('writes owner-only files (0600), replacing a looser existing file', async () => {
    const path = join(root, 'mode', 'token.json');
    const store = createFileIdTokenStore(path);
    await store.save('a');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await chmod(path, 0o644);
    await store.save('b');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, 'mode'))).mode & 0o777).toBe(0o700);
  });

  it('replaces the file by rename: an open reader keeps the old complete content', async () => {
    const path = join(root, 'atomic.json');
    const store = createFileIdTokenStore(path);
    await store.save('old');
    const before = (await stat(path)).ino;
    await store.save('new');
    // A rename installs a new inode; an in-place rewrite would keep the old one.
    if (posix) expect((await stat(path)).ino).not.toBe(before);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ version: 1, idToken: 'new' });
  });

  it('loads a corrupt or empty file as no token, and overwrites it on the next save', async () => {
    const path = join(root, 'corrupt.json');
    for (const content of ['{"idToken": "trunc', '', 'null', '{"idToken": 42}']) {
      await writeFile(path, content);
      await expect(createFileIdTokenStore(path).load()).resolves.toBeUndefined();
    }
    const store = createFileIdTokenStore(path);
    await store.save('good');
    await expect(store.load()).resolves.toBe('good');
  });

  it('lets a restarted app use its last ID token on the standby within the grace', async () => {
    const path = join(root, 'restart', 'token.json');
    const token = idToken(T0);
    const before = createIdTokenSource({
      provider: () => token,
      store: createFileIdTokenStore(path),
      now: () => T0 - 1000 * 60 * 60,
    });
    await before.get('main');

    const after = createIdTokenSource({
      provider: () => Promise.reject(new Error('identity provider down')),
      store: createFileIdTokenStore(path),
      now: () => T0 + 1000 * 60 * 60,
    });
    await expect(after.get('standby')).resolves.toEqual({ token, inGrace: true, expiresAt: T0 });
  });

  it('rejects an empty path with an InvalidOptionError', () => {
    expect(() => createFileIdTokenStore('')).toThrow(InvalidOptionError);
  });
});
