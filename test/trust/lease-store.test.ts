// Damaged or edited lease stores (DECISIONS.md "Lease trust (third wave)"): restore() rejects
// with LEASE_STORE_INVALID (`unreadable`, `malformed`, `edited`, `sealed`) for a store that
// exists but cannot be trusted, never with a RangeError or a SyntaxError; an I/O error never
// costs the leases (the store is read again before the next write); an edited or malformed store
// is replaced by the next successful online exchange; a UTF-8 BOM is not damage; a sealed store
// refuses every edit; a version 1 store (second wave) is read. Rules:
// sdk/src/lease/store-document.ts (readStoreDocument), sdk/src/lease/lease-state.ts (load,
// write), sdk/src/internal/sealed-text.ts with sdk/src/node/file-lease-store.ts and
// sdk/src/lease/web-storage-lease-store.ts (seal/unseal).
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rejection } from '@sdk-test/helpers/rejection.js';
import { hmacSealing } from '@sdk-test/helpers/sealing.js';
import {
  createWebStorageLeaseStore,
  type LeaseStore,
  type LicensingClientOptions,
} from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { offline } from '@test/helpers/lying-network.js';
import {
  clearFaults,
  clientFor,
  type MockLicensing,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import {
  readStoreFile,
  withTimeMarkLiteral,
  writeStoreFile,
} from '@test/helpers/store-documents.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
let folder: string;
let files = 0;
beforeAll(async () => {
  mock = await startMockLicensing();
  folder = await mkdtemp(join(tmpdir(), 'trust-store-'));
});
afterEach(() => clearFaults(mock.server));
afterAll(async () => {
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

function storePath(): string {
  files += 1;
  return join(folder, `store-${files}.json`);
}

function clientOn(store: LeaseStore, extra: Partial<LicensingClientOptions> = {}) {
  return clientFor(mock, { leaseStore: store, failover: { mainAttempts: 1 }, ...extra }).client;
}

/** A lease store holding ItemA from main and ItemB from the standby (keys of both services). */
async function genuineStore(store: LeaseStore = createFileLeaseStore(storePath())) {
  const client = clientOn(store);
  const a = (await client.checkout(['ItemA'])).leases[0]!;
  await setMainFault(mock.server, { mode: 'error', status: 503 });
  const b = (await client.checkout(['ItemB'])).leases[0]!;
  await clearFaults(mock.server);
  await client.close();
  expect([a.servedBy, b.servedBy]).toEqual(['main', 'standby']);
  return { store, leaseIds: [a.leaseId, b.leaseId] };
}

/** A store that fails to load (an I/O error, e.g. EBUSY) `failures` times, then reads `inner`. */
function flakyStore(inner: LeaseStore, failures: number, code = 'EBUSY') {
  const flaky = {
    loads: 0,
    saves: 0,
    async load() {
      flaky.loads += 1;
      if (flaky.loads <= failures) {
        throw Object.assign(new Error(`${code}: resource busy or locked`), { code });
      }
      return inner.load();
    },
    async save(value: Parameters<LeaseStore['save']>[0]) {
      flaky.saves += 1;
      return inner.save(value);
    },
    clear: () => inner.clear(),
  };
  return flaky;
}

describe('a time mark that is no time', () => {
  /** A genuine store whose time mark now reads `literal`. */
  async function storeWithTimeMark(literal: string) {
    const path = storePath();
    await genuineStore(createFileLeaseStore(path));
    await writeStoreFile(path, withTimeMarkLiteral(await readStoreFile(path), literal));
    return path;
  }

  it.each(['1e999', '-1e999', '9e15', '-1', '"tomorrow"', 'null'])(
    'time mark %s: restore() is LEASE_STORE_INVALID edited, call after call',
    async (literal) => {
      const path = await storeWithTimeMark(literal);
      const client = clientOn(createFileLeaseStore(path), { fetch: offline });
      for (let call = 0; call < 2; call++) {
        expect(await rejection(client.restore())).toMatchObject({
          code: 'LEASE_STORE_INVALID',
          reason: 'edited',
        });
      }
      await client.close();
    },
  );

  it.each(['1e999', '9e15'])(
    'time mark %s: checkout() works (never a RangeError) and replaces the store',
    async (literal) => {
      const path = await storeWithTimeMark(literal);
      const client = clientOn(createFileLeaseStore(path));
      const [fresh] = (await client.checkout(['ItemC'])).leases;
      expect(fresh?.item).toBe('ItemC');
      expect((await client.restore()).leases.map((lease) => lease.item)).toEqual(['ItemC']);
      await client.close();
      expect(Number.isFinite((await readStoreFile(path)).timeMark)).toBe(true);
      const restarted = clientOn(createFileLeaseStore(path), { fetch: offline });
      expect((await restarted.restore()).leases.map((lease) => lease.item)).toEqual(['ItemC']);
      await restarted.close();
    },
  );

  it.each([
    ['an offset of 1e999', (text: string) => text.replace(/"offsetMs":0/, '"offsetMs":1e999')],
    ['an offset of 2 days', (text: string) => text.replace(/"offsetMs":0/, '"offsetMs":172800000')],
    ['no time mark', (text: string) => text.replace(/"timeMark":[0-9.e+]+,?/, '')],
  ])('%s is edited too', async (_name, edit) => {
    const path = storePath();
    await genuineStore(createFileLeaseStore(path));
    const text = JSON.stringify(await readStoreFile(path));
    const changed = edit(text);
    expect(changed).not.toBe(text);
    await writeStoreFile(path, changed);
    const client = clientOn(createFileLeaseStore(path), { fetch: offline });
    expect(await rejection(client.restore())).toMatchObject({
      code: 'LEASE_STORE_INVALID',
      reason: 'edited',
    });
    await client.close();
  });
});

describe('an entry planted with an iat in the future', () => {
  it('locks restore() out only until the next online exchange, which drops it', async () => {
    const path = storePath();
    await genuineStore(createFileLeaseStore(path));
    // An unsigned junk token issued in ten years, and a time mark just above it: the store keeps
    // its own rules (mark >= every iat), so offline the clock reads as set back.
    const future = Math.floor(Date.now() / 1000) + 10 * 365 * 86_400;
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const junk = `${b64({ alg: 'RS256', kid: 'junk' })}.${b64({ ItemZ: true, jti: 'J', lic: 'L', iat: future, exp: future + 60 })}.c2ln`;
    const document = await readStoreFile(path);
    document.leases.push({ item: 'ItemZ', token: junk, servedBy: 'main' });
    document.timeMark = (future + 1) * 1000;
    await writeStoreFile(path, document);

    const offlineClient = clientOn(createFileLeaseStore(path), { fetch: offline });
    expect(await rejection(offlineClient.restore())).toMatchObject({ code: 'CLOCK_ROLLBACK' });
    await offlineClient.close();

    // One successful online exchange re-anchors the mark on the services' time; the junk entry
    // no longer holds it up, and the next restore drops it for its signature.
    const online = clientOn(createFileLeaseStore(path));
    expect((await online.checkout(['ItemC'])).leases[0]?.item).toBe('ItemC');
    expect((await online.restore()).leases.map((lease) => lease.item).sort()).toEqual([
      'ItemA',
      'ItemB',
      'ItemC',
    ]);
    await online.close();
    expect((await readStoreFile(path)).leases.map((lease) => lease.item)).not.toContain('ItemZ');
    const restarted = clientOn(createFileLeaseStore(path), { fetch: offline });
    expect((await restarted.restore()).leases).toHaveLength(3);
    await restarted.close();
  });
});

describe('a store that cannot be read for a moment', () => {
  it('one EBUSY on load, then a checkout: the old leases AND the new one are kept', async () => {
    const path = storePath();
    const { leaseIds } = await genuineStore(createFileLeaseStore(path));
    const store = flakyStore(createFileLeaseStore(path), 1);

    const client = clientOn(store);
    const [fresh] = (await client.checkout(['ItemC'])).leases;
    expect((await readStoreFile(path)).leases.map((entry) => entry.item).sort()).toEqual([
      'ItemA',
      'ItemB',
      'ItemC',
    ]);
    // Read again before the write, not written blind.
    expect(store.loads).toBeGreaterThanOrEqual(2);
    await client.close();

    const restarted = clientOn(createFileLeaseStore(path), { fetch: offline });
    expect((await restarted.restore()).leases.map((lease) => lease.leaseId).sort()).toEqual(
      [...leaseIds, fresh!.leaseId].sort(),
    );
    await restarted.close();
  });

  it('restore() says unreadable while the read fails, and restores once it works', async () => {
    const path = storePath();
    const { leaseIds } = await genuineStore(createFileLeaseStore(path));
    const client = clientOn(flakyStore(createFileLeaseStore(path), 1), { fetch: offline });
    expect(await rejection(client.restore())).toMatchObject({
      code: 'LEASE_STORE_INVALID',
      reason: 'unreadable',
    });
    expect((await client.restore()).leases.map((lease) => lease.leaseId)).toEqual(leaseIds);
    await client.close();
  });

  it('a store that never reads is never written: checkout works, the file is untouched', async () => {
    const path = storePath();
    await genuineStore(createFileLeaseStore(path));
    const before = await readFile(path);
    const store = flakyStore(createFileLeaseStore(path), Number.POSITIVE_INFINITY, 'EACCES');
    const client = clientOn(store);
    expect((await client.checkout(['ItemC'])).leases[0]?.item).toBe('ItemC');
    await client.close();
    expect(store.saves).toBe(0);
    expect((await readFile(path)).equals(before)).toBe(true);
  });
});

describe('text that is not a lease store', () => {
  it('a UTF-8 byte-order mark is not damage: restore() and a checkout keep the leases', async () => {
    const path = storePath();
    const { leaseIds } = await genuineStore(createFileLeaseStore(path));
    await writeStoreFile(path, `\uFEFF${JSON.stringify(await readStoreFile(path))}`);

    const client = clientOn(createFileLeaseStore(path));
    expect((await client.restore()).leases.map((lease) => lease.leaseId)).toEqual(leaseIds);
    await client.checkout(['ItemC']);
    expect((await readStoreFile(path)).leases.map((entry) => entry.item)).toEqual([
      'ItemA',
      'ItemB',
      'ItemC',
    ]);
    await client.close();
  });

  it.each([
    ['torn JSON', '{"version":2,"leases":['],
    ['a JSON array', '[]'],
    ['a JSON string', '"leases"'],
    ['JSON null', 'null'],
    ['an unknown version', '{"version":3,"leases":[],"keys":{},"timeMark":0,"offsetMs":0}'],
    [
      'leases that are no list',
      '{"version":2,"leases":{},"keys":{"main":[],"standby":[]},"timeMark":0,"offsetMs":0}',
    ],
    [
      'a lease entry without a token',
      '{"version":2,"leases":[{"item":"A","servedBy":"main"}],"keys":{"main":[],"standby":[]},"timeMark":0,"offsetMs":0}',
    ],
    [
      'keys that are no list',
      '{"version":2,"leases":[],"keys":{"main":{"keys":[]},"standby":[]},"timeMark":0,"offsetMs":0}',
    ],
  ])(
    '%s: restore() is LEASE_STORE_INVALID malformed; a checkout replaces it',
    async (_name, text) => {
      const path = storePath();
      await writeStoreFile(path, text);
      const client = clientOn(createFileLeaseStore(path));
      expect(await rejection(client.restore())).toMatchObject({
        code: 'LEASE_STORE_INVALID',
        reason: 'malformed',
      });
      await client.checkout(['ItemA']);
      expect((await client.restore()).leases.map((lease) => lease.item)).toEqual(['ItemA']);
      await client.close();
      expect((await readStoreFile(path)).version).toBe(2);
    },
  );

  it('an empty file is an empty store, not damage', async () => {
    const path = storePath();
    await writeFile(path, '');
    const client = clientOn(createFileLeaseStore(path), { fetch: offline });
    expect((await client.restore()).leases).toEqual([]);
    await client.close();
  });
});

describe('a sealed store refuses every edit', () => {
  const sealing = hmacSealing('a key from the OS keychain');

  /** Web Storage in memory, as a browser's localStorage. */
  function memoryStorage() {
    const items = new Map<string, string>();
    return {
      items,
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => void items.set(key, value),
      removeItem: (key: string) => void items.delete(key),
    };
  }

  const edits: Array<[string, (sealed: string) => string]> = [
    ['a time mark lowered', (s) => s.replace(/"timeMark":\d+/, '"timeMark":1000')],
    ['a lease removed', (s) => s.replace(/"leases":\[\{.*?\},/, '"leases":[')],
    ['one character flipped', (s) => `${s.slice(0, 40)}${s[40] === 'a' ? 'b' : 'a'}${s.slice(41)}`],
    ['the seal cut off', (s) => s.slice(s.indexOf('.') + 1)],
    ['a space appended', (s) => `${s} `],
  ];

  it('file store: the intact sealed store restores (the control)', async () => {
    const path = storePath();
    const { leaseIds } = await genuineStore(createFileLeaseStore(path, sealing));
    const client = clientOn(createFileLeaseStore(path, sealing), { fetch: offline });
    expect((await client.restore()).leases.map((lease) => lease.leaseId)).toEqual(leaseIds);
    await client.close();
  });

  it.each(edits)('file store, %s: LEASE_STORE_INVALID sealed', async (_name, edit) => {
    const path = storePath();
    await genuineStore(createFileLeaseStore(path, sealing));
    const sealed = (await readFile(path, 'utf8')).slice(0, -1);
    const edited = edit(sealed);
    expect(edited).not.toBe(sealed);
    await writeFile(path, `${edited}\n`);
    const client = clientOn(createFileLeaseStore(path, sealing), { fetch: offline });
    expect(await rejection(client.restore())).toMatchObject({
      code: 'LEASE_STORE_INVALID',
      reason: 'sealed',
    });
    await client.close();
  });

  it('file store: a genuine unsealed document put in its place is sealed too', async () => {
    const plain = storePath();
    await genuineStore(createFileLeaseStore(plain));
    const path = storePath();
    await writeFile(path, await readFile(plain));
    const client = clientOn(createFileLeaseStore(path, sealing), { fetch: offline });
    expect(await rejection(client.restore())).toMatchObject({
      code: 'LEASE_STORE_INVALID',
      reason: 'sealed',
    });
    await client.close();
  });

  it.each(edits)('web storage, %s: LEASE_STORE_INVALID sealed', async (_name, edit) => {
    const storage = memoryStorage();
    const store = () => createWebStorageLeaseStore({ storage, ...sealing });
    const { leaseIds } = await genuineStore(store());
    const intact = clientOn(store(), { fetch: offline });
    expect((await intact.restore()).leases.map((lease) => lease.leaseId)).toEqual(leaseIds);
    await intact.close();

    const [key, sealed] = [...storage.items][0]!;
    expect(edit(sealed)).not.toBe(sealed);
    storage.items.set(key, edit(sealed));
    const client = clientOn(store(), { fetch: offline });
    expect(await rejection(client.restore())).toMatchObject({
      code: 'LEASE_STORE_INVALID',
      reason: 'sealed',
    });
    await client.close();
  });
});

describe('a version 1 store (second wave)', () => {
  it('is read as version 2: its leases restore, and the next write is version 2', async () => {
    const path = storePath();
    const { leaseIds } = await genuineStore(createFileLeaseStore(path));
    const document = await readStoreFile(path);
    await writeStoreFile(path, {
      version: 1,
      leases: document.leases,
      jwks: { main: { keys: document.keys.main }, standby: { keys: document.keys.standby } },
      trustedTime: document.timeMark,
    });

    const client = clientOn(createFileLeaseStore(path), { fetch: offline });
    expect((await client.restore()).leases.map((lease) => lease.leaseId)).toEqual(leaseIds);
    await client.close();
    const migrated = await readStoreFile(path);
    expect(migrated).toMatchObject({ version: 2, leases: document.leases });
    expect(migrated.keys.main.map((jwk) => jwk.kid)).toEqual(
      document.keys.main.map((jwk) => jwk.kid),
    );
  });

  it('a version 1 store whose trusted time was edited to 1e999 is edited', async () => {
    const path = storePath();
    await genuineStore(createFileLeaseStore(path));
    const document = await readStoreFile(path);
    const v1 = JSON.stringify({
      version: 1,
      leases: document.leases,
      jwks: { main: { keys: document.keys.main } },
      trustedTime: -123,
    }).replace(':-123', ':1e999');
    await writeStoreFile(path, v1);
    const client = clientOn(createFileLeaseStore(path), { fetch: offline });
    expect(await rejection(client.restore())).toMatchObject({
      code: 'LEASE_STORE_INVALID',
      reason: 'edited',
    });
    await client.close();
  });
});

it('appending to a store file is damage the next checkout repairs', async () => {
  const path = storePath();
  await genuineStore(createFileLeaseStore(path));
  await appendFile(path, 'garbage');
  const client = clientOn(createFileLeaseStore(path));
  expect(await rejection(client.restore())).toMatchObject({ code: 'LEASE_STORE_INVALID' });
  await client.checkout(['ItemC']);
  expect((await client.restore()).leases.map((lease) => lease.item)).toEqual(['ItemC']);
  await client.close();
});
