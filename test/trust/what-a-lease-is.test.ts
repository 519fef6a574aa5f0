// What a lease is (DECISIONS.md "Lease trust (third wave)"): a token of the service that signed
// it whose claims hold `<item>: true`, a `jti` and a `lic`. A release answer is main-signed and
// grants `<name>: true` too, but it is never a lease: not to verify(), not from the lease store,
// not as main's answer to a checkout or a renewal. checkoutProducts grants nothing without such a
// lease, and a token's segments are strict base64url. Rules: sdk/src/lease/verify-lease.ts
// (checkLeaseClaims), sdk/src/lease/lease-token.ts (readLeaseToken),
// sdk/src/client/checkout-products.ts, sdk/src/client/accept-token.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rejection } from '@sdk-test/helpers/rejection.js';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { createLyingNetwork, fetchReal, offline, rewrite } from '@test/helpers/lying-network.js';
import {
  clientFor,
  closedPort,
  countingFetch,
  type MockLicensing,
  mintIdToken,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { plantLeases, readStoreFile, writeStoreFile } from '@test/helpers/store-documents.js';
import { http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
let folder: string;
let files = 0;
const network = createLyingNetwork();
beforeAll(async () => {
  // ItemSecret is in no catalogue and no license: this user may never hold it.
  mock = await startMockLicensing(['ItemA', 'ItemB', 'Pro']);
  folder = await mkdtemp(join(tmpdir(), 'trust-lease-'));
  network.listen();
});
afterEach(() => network.resetHandlers());
afterAll(async () => {
  network.close();
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

/** A lease store file of its own for each test. */
function storePath(): string {
  files += 1;
  return join(folder, `store-${files}.json`);
}

/** `GET <main>/authz/.jwt?release&<name>` as the signed-in user: a main-signed release answer. */
async function releaseAnswer(name: string): Promise<string> {
  const response = await fetch(`${mock.server.info.mainUrl}/authz/.jwt?release&${name}`, {
    headers: { authorization: `IdToken ${await mintIdToken(mock.server)}` },
  });
  expect(response.status).toBe(200);
  const token = await response.text();
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  // The answer the issue describes: `<name>: true`, main's iss/sub/iat/exp, no jti, no lic.
  expect(claims).toMatchObject({ [name]: true, iss: mock.server.info.mainUrl });
  expect(claims).not.toHaveProperty('jti');
  expect(claims).not.toHaveProperty('lic');
  return token;
}

/** A file store holding main's keys from one real checkout, and that checkout's lease. */
async function storeWithMainKeys() {
  const path = storePath();
  const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(path) });
  const [lease] = (await client.checkout(['ItemA'])).leases;
  await client.close();
  return { path, lease: lease! };
}

describe('a main release answer is never a lease', () => {
  it('verify() refuses it as not-a-lease, with and without the item', async () => {
    const token = await releaseAnswer('ItemSecret');
    const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(storePath()) });
    for (const options of [undefined, { item: 'ItemSecret' }]) {
      expect(await rejection(client.verify(token, options))).toMatchObject({
        code: 'TOKEN_INVALID',
        reason: 'not-a-lease',
      });
    }
    await client.close();
  });

  it('planted in the lease store, offline restore() returns nothing and removes it', async () => {
    const token = await releaseAnswer('ItemSecret');
    const { path } = await storeWithMainKeys();
    const planted = { item: 'ItemSecret', token, servedBy: 'main' as const };
    await writeStoreFile(path, plantLeases(await readStoreFile(path), [planted]));

    const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(path), fetch: offline });
    expect((await client.restore()).leases).toEqual([]);
    expect((await readStoreFile(path)).leases).toEqual([]);
    await client.close();
  });

  it("as main's answer to checkout(['ItemSecret']) it is TOKEN_INVALID not-a-lease, and the standby is not asked", async () => {
    const mainAuthz = `${mock.server.info.mainUrl}/authz/.jwt`;
    network.use(
      http.get(mainAuthz, async ({ request }) => {
        // Main answers the checkout with the release answer of the same name.
        const real = await fetchReal(request, `${mainAuthz}?release&ItemSecret`);
        return rewrite(real, await real.text());
      }),
    );
    const counting = countingFetch(mock);
    const { client } = clientFor(mock, {
      leaseStore: createFileLeaseStore(storePath()),
      fetch: counting.fetch,
    });
    expect(await rejection(client.checkout(['ItemSecret']))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'not-a-lease',
    });
    expect(counting.counts.standby).toBe(0);
    await client.close();
  });

  it("as main's answer to a renewal (the release of the lease's own item) it is not-a-lease", async () => {
    const path = storePath();
    const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(path) });
    const [lease] = (await client.checkout(['ItemA'])).leases;
    const mainAuthz = `${mock.server.info.mainUrl}/authz/.jwt`;
    network.use(
      http.get(mainAuthz, async ({ request }) => {
        const real = await fetchReal(request, `${mainAuthz}?release&ItemA`);
        return rewrite(real, await real.text());
      }),
    );
    expect(await rejection(client.renew(lease!))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'not-a-lease',
    });
    // The lease kept is still the genuine one.
    expect((await readStoreFile(path)).leases.map((entry) => entry.token)).toEqual([lease!.token]);
    await client.close();
  });
});

describe('a lease verifies against the keys of the service it came from', () => {
  it("a genuine main lease as the standby's answer is TOKEN_INVALID", async () => {
    const { mainUrl, standbyUrl } = mock.server.info;
    network.use(
      http.get(`${standbyUrl}/authz/.jwt`, async ({ request }) => {
        // The same request answered by main: a genuine lease, of the other service.
        const real = await fetchReal(request, request.url.replace(standbyUrl, mainUrl));
        return rewrite(real, await real.text());
      }),
    );
    const { client } = clientFor(mock, {
      leaseStore: createFileLeaseStore(storePath()),
      mainUrl: `http://127.0.0.1:${await closedPort()}/main`,
      failover: { mainAttempts: 1 },
    });
    expect(await rejection(client.checkout(['ItemA']))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'kid',
    });
    await client.close();
  });

  it("verify() with the other service's keys refuses a genuine lease", async () => {
    const { path, lease } = await storeWithMainKeys();
    const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(path) });
    expect(await rejection(client.verify(lease.token, { service: 'standby' }))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'kid',
    });
    await client.close();
  });
});

describe('checkoutProducts grants only with a lease for the product', () => {
  const checkoutAction = () => `${mock.server.info.mainUrl}/licensing/actions/checkout`;
  const products = [{ productName: 'Pro', qty: 1, qtyDimension: 'SEATS' as const }];

  /** Main's real product answer, each entry rewritten by `edit`. */
  function lieAboutProducts(edit: (entry: Record<string, unknown>) => Record<string, unknown>) {
    network.use(
      http.post(checkoutAction(), async ({ request }) => {
        const real = await fetchReal(request);
        const entries = (await real.json()) as Record<string, unknown>[];
        return rewrite(real, JSON.stringify(entries.map(edit)));
      }),
    );
  }

  it('the real answer grants Pro with its lease (the control)', async () => {
    const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(storePath()) });
    const [result] = await client.checkoutProducts(products);
    expect(result).toMatchObject({ productName: 'Pro', granted: true, lease: { item: 'Pro' } });
    await client.close();
  });

  it('`granted: true` without a jwt is TOKEN_INVALID', async () => {
    lieAboutProducts(({ jwt: _jwt, ...entry }) => ({ ...entry, granted: true }));
    const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(storePath()) });
    expect(await rejection(client.checkoutProducts(products))).toMatchObject({
      code: 'TOKEN_INVALID',
    });
    await client.close();
  });

  it('`granted: true` with a genuine lease of another item is TOKEN_INVALID', async () => {
    const path = storePath();
    const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(path) });
    const [other] = (await client.checkout(['ItemB'])).leases;
    lieAboutProducts((entry) => ({ ...entry, granted: true, jwt: other!.token }));
    expect(await rejection(client.checkoutProducts(products))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'item',
    });
    // Nothing was saved for Pro.
    expect((await readStoreFile(path)).leases.map((entry) => entry.item)).toEqual(['ItemB']);
    await client.close();
  });
});

describe('token segments are strict base64url', () => {
  /** The token with one segment changed. */
  function mangled(token: string, index: number, change: (segment: string) => string): string {
    const parts = token.split('.');
    parts[index] = change(parts[index]!);
    return parts.join('.');
  }
  const variants: Array<[string, (token: string) => string]> = [
    ['== after the signature', (t) => `${t}==`],
    ['! after the signature', (t) => `${t}!`],
    ['= after the signature', (t) => `${t}=`],
    ['a padded header', (t) => mangled(t, 0, (s) => `${s}==`)],
    ['a padded payload', (t) => mangled(t, 1, (s) => `${s}=`)],
    [
      'a standard-base64 signature',
      (t) => mangled(t, 2, (s) => s.replace(/-/g, '+').replace(/_/g, '/')),
    ],
  ];

  it.each(variants)(
    'a genuine lease with %s is TOKEN_INVALID malformed to verify()',
    async (_name, change) => {
      const { path, lease } = await storeWithMainKeys();
      const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(path) });
      const token = change(lease.token);
      // (A 256-byte signature with neither - nor _ would leave the last one unchanged: 1 in 50 000.)
      expect(token).not.toBe(lease.token);
      expect(await rejection(client.verify(token))).toMatchObject({
        code: 'TOKEN_INVALID',
        reason: 'malformed',
      });
      expect(await rejection(client.verify(token, { item: 'ItemA' }))).toMatchObject({
        code: 'TOKEN_INVALID',
        reason: 'malformed',
      });
      // The genuine token still verifies: only the form was refused.
      expect((await client.verify(lease.token)).leaseId).toBe(lease.leaseId);
      await client.close();
    },
  );

  it('restore() drops every such variant from the store and keeps the genuine lease', async () => {
    const { path, lease } = await storeWithMainKeys();
    const planted = variants
      .map(([, change]) => change(lease.token))
      .map((token) => ({ item: 'ItemA', token, servedBy: 'main' as const }));
    const document = await readStoreFile(path);
    await writeStoreFile(path, plantLeases(document, [...planted, ...document.leases]));

    const { client } = clientFor(mock, { leaseStore: createFileLeaseStore(path), fetch: offline });
    expect((await client.restore()).leases.map((l) => l.token)).toEqual([lease.token]);
    expect((await readStoreFile(path)).leases.map((entry) => entry.token)).toEqual([lease.token]);
    await client.close();
  });
});
