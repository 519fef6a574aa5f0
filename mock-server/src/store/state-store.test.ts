import { generateKeyPairSync } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { STANDBY_OUTBOX_FILE } from '../standby/standby-plugin.js';
import { EVENT_LOG_FILE } from './event-log.js';
import { DataFileError } from './state-store.js';

/** A file of the data dir and how to damage it (from its good contents). */
type Damage = [file: string, what: string, damage: (good: string) => string];

const ecPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
// biome-ignore lint/suspicious/noExplicitAny: each case edits its own document shape
type Doc = any;
const edit = (change: (doc: Doc) => unknown) => (good: string) =>
  JSON.stringify(change(JSON.parse(good)));

const DAMAGES: Damage[] = [
  ['api-key.json', 'not JSON', (good) => good.slice(0, -4)],
  ['api-key.json', 'a number for the key', () => '{"apiKey":5}'],
  ['issuer-key.json', 'an empty object', () => '{}'],
  [
    'issuer-key.json',
    'a PEM that does not parse',
    edit((doc) => ({
      ...doc,
      privatePem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
    })),
  ],
  ['main-key.json', 'an EC key', edit((doc) => ({ ...doc, privatePem: ecPem }))],
  ['main-certificates.json', 'an array', () => '[]'],
  ['main-certificates.json', 'the chain of another key', edit((doc) => ({ ...doc, kid: 'other' }))],
  [
    'main-certificates.json',
    'no root certificate',
    edit((doc) => ({ ...doc, chain: { ...doc.chain, rootCertificate: 'x' } })),
  ],
  ['standby-signing-keys.json', 'no keys at all', () => '[]'],
  ['standby-signing-keys.json', 'a key listed twice', edit((doc) => [doc[0], doc[0]])],
  [
    'standby-signing-keys.json',
    'a key without its chain',
    edit((doc) => [{ ...doc[0], chain: undefined }]),
  ],
  ['standby-state.json', 'an unknown state', () => '{"state":"on"}'],
  ['standby-state.json', 'a bare string', () => '"active"'],
  [
    'standby-state.json',
    'a pending change without a time',
    () => '{"state":"dormant","pending":{"state":"active"}}',
  ],
  [
    'main-licenses.json',
    'a license without its item',
    edit((doc) => ({
      ...doc,
      licenses: [{ ...doc.licenses[0], item: undefined }],
    })),
  ],
  [
    'main-licenses.json',
    'a license listed twice',
    edit((doc) => ({
      ...doc,
      licenses: [doc.licenses[0], doc.licenses[0]],
    })),
  ],
  [
    'main-licenses.json',
    'an outbox event of another source',
    edit((doc) => ({
      ...doc,
      outbox: [{ change: 1, events: [{ ...doc.outbox[0].events[0], eventSourceId: 'billing' }] }],
    })),
  ],
  [
    'main-licenses.json',
    'outbox changes out of order',
    edit((doc) => ({
      ...doc,
      outbox: [
        { ...doc.outbox[0], change: 2 },
        { ...doc.outbox[0], change: 1 },
      ],
    })),
  ],
  [EVENT_LOG_FILE, 'a line of another shape', (good) => `${good}{"events":{}}\n`],
  [EVENT_LOG_FILE, 'a line that is not JSON', (good) => `${good}garbage\n`],
  [STANDBY_OUTBOX_FILE, 'a line that is not JSON', (good) => `${good}garbage\n`],
  [
    STANDBY_OUTBOX_FILE,
    'an entry without events',
    (good) => `${good}{"change":9,"storedAfter":"0","events":[]}\n`,
  ],
  [STANDBY_OUTBOX_FILE, 'an entry listed twice', (good) => `${good}${good}`],
];

describe('data files checked on start', () => {
  let root: string;
  let good: string;
  let goodFiles: string[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'data-files-'));
    good = join(root, 'good');
    const app = await buildApp({ dataDir: good, state: 'active', admin: true });
    await app.inject({
      method: 'POST',
      url: '/events/put',
      payload: { eventType: 'T', eventSourceId: 's' },
    });
    // A license whose event stays in main's outbox, so the file holds one entry.
    app.mainOutbox.setPaused(true);
    await app.inject({
      method: 'POST',
      url: '/admin/main/licenses',
      payload: { sub: 'u1', item: 'Pro' },
    });
    // A standby lease whose event stays in the standby's outbox journal.
    app.standbyOutboxDelivery.setPaused(true);
    const minted = await app.inject({ method: 'POST', url: '/idp/token', payload: { sub: 'u1' } });
    const lease = await app.inject({
      url: '/standby/authz/.jwt?Pro',
      headers: { authorization: `IdToken ${minted.json().id_token}` },
    });
    expect(lease.statusCode).toBe(200);
    await app.close();
    goodFiles = (await readdir(good)).sort();
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('writes one file of each kind checked below', () => {
    expect(goodFiles).toEqual([...new Set(DAMAGES.map(([file]) => file))].sort());
  });

  it.each(DAMAGES)(
    'refuses to start on %s with %s, naming it, and changes nothing',
    async (file, _what, damage) => {
      const dataDir = await mkdtemp(join(root, 'case-'));
      await cp(good, dataDir, { recursive: true });
      const path = join(dataDir, file);
      const damaged = damage(await readFile(path, 'utf8'));
      await writeFile(path, damaged);
      const error = await buildApp({ dataDir }).then(
        async (app) => {
          await app.close();
          return undefined;
        },
        (err: unknown) => err as Error,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error!.message).toContain(path);
      if (file !== EVENT_LOG_FILE && file !== STANDBY_OUTBOX_FILE) {
        expect(error).toBeInstanceOf(DataFileError);
      }
      // Never a silent reset or a new root: the file is as it was, and no file was added.
      expect(await readFile(path, 'utf8')).toBe(damaged);
      expect((await readdir(dataDir)).sort()).toEqual(goodFiles);
    },
  );
});

describe('the API key in the data dir', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'api-key-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const start = async (apiKey?: string) => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp({
      dataDir,
      ...(apiKey === undefined ? {} : { apiKey }),
      logger: { level: 'info', stream },
    });
    const key = app.apiKey;
    await app.close();
    return { key, log: lines.join('') };
  };

  it('keeps a given key, replaces it with a different one (logged), keeps it without one', async () => {
    expect((await start('first-key')).key).toBe('first-key');
    expect((await start()).key).toBe('first-key');
    const same = await start('first-key');
    expect(same.log).not.toMatch(/replaces/);
    const replaced = await start('second-key');
    expect(replaced.key).toBe('second-key');
    expect(replaced.log).toMatch(/replaces the one kept in the data dir/);
    expect((await start()).key).toBe('second-key');
    expect(JSON.parse(await readFile(join(dataDir, 'api-key.json'), 'utf8'))).toEqual({
      apiKey: 'second-key',
    });
  });
});
