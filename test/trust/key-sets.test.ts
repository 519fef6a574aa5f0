// Key sets (DECISIONS.md "Lease trust (third wave)"): only keys whose chain verified are saved,
// merged by kid with those saved before; a bad JWK set answer never removes a saved key or a
// saved lease, and a kid lookup never deletes a saved lease. Rules: sdk/src/lease/service-keys.ts
// (merge, restore, trusted), sdk/src/client/trusted-keys.ts (keysWithKid), sdk/src/client/restore.ts
// with FINAL_REFUSALS in sdk/src/lease/verify-lease.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rejection } from '@sdk-test/helpers/rejection.js';
import { createTestCa, createTestSigningKey } from '@sdk-test/helpers/test-pki.js';
import type { LicensingClientOptions } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { createLyingNetwork, fetchReal, offline, rewrite } from '@test/helpers/lying-network.js';
import {
  clearFaults,
  clientFor,
  closedPort,
  createSigningKey,
  type MockLicensing,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { readStoreFile, writeStoreFile } from '@test/helpers/store-documents.js';
import { http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

type Jwk = Record<string, unknown>;
type JwkSet = { keys: Jwk[] };

let mock: MockLicensing;
let folder: string;
let files = 0;
/** A JWK whose chain leads to a root no app embeds, and its signing key. */
let stranger: Awaited<ReturnType<typeof createTestSigningKey>>;
const network = createLyingNetwork();
beforeAll(async () => {
  mock = await startMockLicensing();
  folder = await mkdtemp(join(tmpdir(), 'trust-keys-'));
  stranger = await createTestSigningKey(await createTestCa({ name: 'Stranger Root' }), {
    kid: 'stranger-kid',
  });
  network.listen();
});
afterEach(async () => {
  network.resetHandlers();
  await clearFaults(mock.server);
});
afterAll(async () => {
  network.close();
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

function storePath(): string {
  files += 1;
  return join(folder, `store-${files}.json`);
}

function clientOn(path: string, extra: Partial<LicensingClientOptions> = {}) {
  return clientFor(mock, {
    leaseStore: createFileLeaseStore(path),
    failover: { mainAttempts: 1 },
    ...extra,
  }).client;
}

/** The token with its header's `kid` replaced (its signature no longer matters). */
function withKid(token: string, kid: string): string {
  const [header, ...rest] = token.split('.');
  const decoded = JSON.parse(Buffer.from(header!, 'base64url').toString());
  return [Buffer.from(JSON.stringify({ ...decoded, kid })).toString('base64url'), ...rest].join(
    '.',
  );
}

/** Answers `service`'s JWK set with `lie(real set)`; counts the answers. */
function lieAboutKeys(service: 'main' | 'standby', lie: (real: JwkSet) => unknown) {
  const base = service === 'main' ? mock.server.info.mainUrl : mock.server.info.standbyUrl;
  const seen = { count: 0 };
  network.use(
    http.get(`${base}/.well-known/jwks.json`, async ({ request }) => {
      const real = await fetchReal(request);
      seen.count += 1;
      return rewrite(real, JSON.stringify(lie((await real.json()) as JwkSet)));
    }),
  );
  return seen;
}

/** A good online session: ItemA and ItemB from main, ItemC from the standby. */
async function goodCheckouts(path: string) {
  const client = clientOn(path);
  const { leases } = await client.checkout(['ItemA', 'ItemB']);
  await setMainFault(mock.server, { mode: 'error', status: 503 });
  const standby = (await client.checkout(['ItemC'])).leases;
  await clearFaults(mock.server);
  await client.close();
  return [...leases, ...standby];
}

/** Hostile answers, made from the real set and the other service's genuine key. */
const hostileSets: Array<[string, (real: JwkSet, other: Jwk) => unknown]> = [
  ['only an unknown kid', (real) => ({ keys: [{ ...real.keys[0], kid: 'unknown-kid' }] })],
  ['only a stranger key (chain to no embedded root)', () => ({ keys: [stranger.jwk] })],
  ['an empty set', () => ({ keys: [] })],
  [
    'the good kid with a chain through another root',
    (real) => ({
      keys: real.keys.map((jwk) => ({
        ...jwk,
        x5c: [(jwk.x5c as string[])[0], stranger.jwk.x5c.at(-1)],
      })),
    }),
  ],
  [
    "the good kid with a stranger's certificate",
    (real) => ({ keys: real.keys.map((jwk) => ({ ...jwk, x5c: stranger.jwk.x5c })) }),
  ],
  [
    'the good kid with its modulus changed',
    (real) => ({ keys: real.keys.map((jwk) => ({ ...jwk, n: stranger.jwk.n })) }),
  ],
  [
    "the other service's genuine key renamed with the good kid",
    (real, other) => ({ keys: real.keys.map((jwk) => ({ ...other, kid: jwk.kid })) }),
  ],
  ['a body without keys', () => ({ key: [] })],
];

describe.each(['main', 'standby'] as const)(
  'a hostile %s JWK set after good checkouts',
  (service) => {
    it.each(hostileSets)(
      '%s: the saved keys and leases survive, and offline restore() returns the leases',
      async (_name, lie) => {
        const path = storePath();
        const leases = await goodCheckouts(path);
        const saved = await readStoreFile(path);
        const other = saved.keys[service === 'main' ? 'standby' : 'main'][0]!;
        const answers = lieAboutKeys(service, (real) => lie(real, other));

        // A token with a kid the app does not hold sends the client to the service's JWK set.
        const lease = leases.find((l) => l.servedBy === service)!;
        const online = clientOn(path);
        const refused = await rejection(
          online.verify(withKid(lease.token, 'rotated-kid'), { service }),
        );
        expect(refused).toMatchObject({
          code: expect.stringMatching(/^(TOKEN_INVALID|SERVICE_UNAVAILABLE)$/),
        });
        expect(answers.count).toBe(1);
        expect((await online.restore()).leases.map((l) => l.leaseId)).toEqual(
          leases.map((l) => l.leaseId),
        );
        await online.close();

        const after = await readStoreFile(path);
        // Every saved key is still saved (a valid new kid may join them), no refused one is.
        for (const side of ['main', 'standby'] as const) {
          expect(after.keys[side]).toEqual(expect.arrayContaining(saved.keys[side]));
        }
        const text = JSON.stringify(after.keys);
        expect(text).not.toContain(stranger.jwk.n);
        expect(text).not.toContain(stranger.jwk.x5c.at(-1));
        expect(after.leases).toEqual(saved.leases);
        const restarted = clientOn(path, { fetch: offline });
        expect((await restarted.restore()).leases.map((l) => l.leaseId)).toEqual(
          leases.map((l) => l.leaseId),
        );
        await restarted.close();
      },
    );
  },
);

describe('a kid lookup never deletes a saved lease', () => {
  it('keys removed from the store: restore() keeps the leases; once the keys are fetched again they restore', async () => {
    const path = storePath();
    const leases = await goodCheckouts(path);
    const saved = await readStoreFile(path);
    await writeStoreFile(path, { ...saved, keys: { main: [], standby: [] } });

    const offlineClient = clientOn(path, { fetch: offline });
    expect((await offlineClient.restore()).leases).toEqual([]);
    await offlineClient.close();
    expect((await readStoreFile(path)).leases).toEqual(saved.leases);

    // Online, verify() fetches each service's set for the kid; the keys are saved again.
    const online = clientOn(path);
    for (const lease of [leases[0]!, leases[2]!]) {
      expect((await online.verify(lease.token)).leaseId).toBe(lease.leaseId);
    }
    await online.close();
    const restarted = clientOn(path, { fetch: offline });
    expect((await restarted.restore()).leases.map((l) => l.leaseId)).toEqual(
      leases.map((l) => l.leaseId),
    );
    await restarted.close();
  });

  it('a lease whose kid the service no longer publishes stays saved', async () => {
    const path = storePath();
    const leases = await goodCheckouts(path);
    const saved = await readStoreFile(path);
    // The saved lease names a kid nobody has (as after a key the app never saw): kept, not given.
    const orphan = { ...saved.leases[0]!, token: withKid(saved.leases[0]!.token, 'gone-kid') };
    await writeStoreFile(path, { ...saved, leases: [orphan, ...saved.leases.slice(1)] });
    const online = clientOn(path);
    expect(await rejection(online.verify(orphan.token, { service: 'main' }))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'kid',
    });
    expect((await online.restore()).leases.map((l) => l.leaseId)).toEqual(
      leases.slice(1).map((l) => l.leaseId),
    );
    await online.close();
    expect((await readStoreFile(path)).leases.map((entry) => entry.token)).toContain(orphan.token);
  });

  it('a restarted app whose first call releases a lease offline keeps every key and lease', async () => {
    const path = storePath();
    const leases = await goodCheckouts(path);
    const first = clientOn(path, { fetch: offline });
    const restored = (await first.restore()).leases;
    await first.close();

    // A new client's first write may come before any key is needed: the keys stay saved. And a
    // release that reached no service leaves its lease in the store (fourth wave).
    const restarted = clientOn(path, { fetch: offline });
    await rejection(restarted.release(restored[0]!));
    await restarted.close();
    const after = await readStoreFile(path);
    expect(after.keys.main.length).toBeGreaterThan(0);
    expect(after.keys.standby.length).toBeGreaterThan(0);
    const again = clientOn(path, { fetch: offline });
    expect((await again.restore()).leases.map((l) => l.leaseId)).toEqual(
      leases.map((l) => l.leaseId),
    );
    await again.close();
  });
});

describe('only keys whose chain verified are saved, merged by kid', () => {
  it('a stranger key added to the real main set is never saved, and its lease is refused', async () => {
    lieAboutKeys('main', (real) => ({ keys: [...real.keys, stranger.jwk] }));
    const forged = await stranger.sign({
      ItemA: true,
      jti: 'forged-lease',
      lic: 'forged-license',
      hw: 'hw-1',
      iss: mock.server.info.mainUrl,
    });
    const mainAuthz = `${mock.server.info.mainUrl}/authz/.jwt`;
    network.use(
      http.get(mainAuthz, async ({ request }) => {
        const real = await fetchReal(request);
        await real.text();
        return rewrite(real, forged);
      }),
    );
    const path = storePath();
    const client = clientOn(path);
    expect(await rejection(client.checkout(['ItemA']))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'chain',
    });
    network.resetHandlers();
    lieAboutKeys('main', (real) => ({ keys: [...real.keys, stranger.jwk] }));
    await client.checkout(['ItemB']);
    await client.close();
    const kids = (await readStoreFile(path)).keys.main.map((jwk) => jwk.kid);
    expect(kids).not.toContain('stranger-kid');
    expect(kids).toHaveLength(1);
  });

  it('a standby set that dropped an older key after a rotation: the older key and its leases stay', async () => {
    const path = storePath();
    const older = (await goodCheckouts(path)).filter((l) => l.servedBy === 'standby');
    const rotated = await createSigningKey(mock.server);
    const trust = {
      rootCertificates: [rotated, mock.standbyRoot, { pem: mock.mainRootPem }],
    };
    // The standby now answers with the new key only (the older one retired from its set).
    lieAboutKeys('standby', (real) => ({
      keys: real.keys.filter((jwk) => jwk.kid === rotated.keyId),
    }));
    const deadMain = `http://127.0.0.1:${await closedPort()}/main`;
    const client = clientOn(path, { trust, mainUrl: deadMain });
    const [fresh] = (await client.checkout(['ItemD'])).leases;
    await client.close();

    const kids = (await readStoreFile(path)).keys.standby.map((jwk) => jwk.kid);
    expect(kids).toEqual(expect.arrayContaining([rotated.keyId, mock.standbyRoot.keyId]));
    const restarted = clientOn(path, { trust, fetch: offline });
    const restored = (await restarted.restore()).leases.filter((l) => l.servedBy === 'standby');
    expect(restored.map((l) => l.leaseId)).toEqual([
      ...older.map((l) => l.leaseId),
      fresh!.leaseId,
    ]);
    await restarted.close();
  });
});
