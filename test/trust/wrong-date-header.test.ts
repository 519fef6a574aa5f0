// The services' time is the signed one (DECISIONS.md "Trust while the app runs (fourth wave)"):
// a wrong `Date` header (a proxy or load balancer minutes, hours or decades off) never refuses a
// genuine fresh lease: where the `Date` of an answer and the `iat` of the fresh token it carries
// disagree by more than the tolerance, the `iat` stands for the services' time of that answer.
// An answer without a fresh token (a JWK set) teaches the offset only when its `Date` agrees with
// the last signed anchor plus the monotonic time since. Finding 4 of issue 28. Rules:
// sdk/src/lease/trusted-clock.ts (servicesTimeOf, observeUnsigned), sdk/src/client/accept-token.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LicensingClientOptions } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import {
  createLyingNetwork,
  fetchReal,
  offline,
  rewrite,
  shiftedDate,
} from '@test/helpers/lying-network.js';
import {
  clientFor,
  closedPort,
  type MockLicensing,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const LEASE_MS = 8 * HOUR;
/** `Date` and `iat` have whole seconds and an answer takes time. */
const SLACK_MS = 3_000;

let mock: MockLicensing;
let folder: string;
let deadMain: string;
let files = 0;
const network = createLyingNetwork();
beforeAll(async () => {
  mock = await startMockLicensing();
  deadMain = `http://127.0.0.1:${await closedPort()}/main`;
  folder = await mkdtemp(join(tmpdir(), 'trust-date-'));
  network.listen();
});
afterEach(() => network.resetHandlers());
afterAll(async () => {
  network.close();
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

type Service = 'main' | 'standby';

function storePath(): string {
  files += 1;
  return join(folder, `store-${files}.json`);
}

/** A client with a right clock on `service` (main a closed port for the standby). */
function clientOn(service: Service, path: string, extra: Partial<LicensingClientOptions> = {}) {
  return clientFor(mock, {
    leaseStore: createFileLeaseStore(path),
    failover: { mainAttempts: 1 },
    ...(service === 'standby' ? { mainUrl: deadMain } : {}),
    ...extra,
  }).client;
}

/**
 * Every answer of `service` (authz and JWK set, or only the JWK set) carries `date(real answer)`
 * as its `Date`.
 */
function lieAboutDate(
  service: Service,
  date: (real: Response) => string,
  routes: readonly string[] = ['/authz/.jwt', '/.well-known/jwks.json'],
) {
  const base = service === 'main' ? mock.server.info.mainUrl : mock.server.info.standbyUrl;
  const lied = { count: 0 };
  network.use(
    ...routes
      .map((path) => `${base}${path}`)
      .map((route) =>
        http.get(route, async ({ request }) => {
          const real = await fetchReal(request);
          lied.count += 1;
          const value = date(real);
          return rewrite(real, await real.text(), (headers) => headers.set('date', value));
        }),
      ),
  );
  return lied;
}

describe.each(['main', 'standby'] as const)(
  'a proxy in front of %s whose clock is wrong',
  (service) => {
    it.each([
      ['2 minutes behind', -2 * MINUTE],
      ['1 hour behind', -HOUR],
      ['9 hours ahead', 9 * HOUR],
    ])(
      '%s: checkout, renew and verify take the genuine lease on its own iat',
      async (_n, shiftMs) => {
        const lied = lieAboutDate(service, (real) => shiftedDate(real, shiftMs));
        const path = storePath();
        const client = clientOn(service, path);
        const [lease] = (await client.checkout(['ItemA'])).leases;
        expect(lease?.servedBy).toBe(service);
        // The lease's local times are the signed ones: the lying Date moved nothing.
        expect(Math.abs(lease!.expiresAt - (Date.now() + LEASE_MS))).toBeLessThanOrEqual(SLACK_MS);
        const renewed = await client.renew(lease!);
        expect(renewed.leaseId).toBe(lease!.leaseId);
        expect((await client.verify(renewed.token)).leaseId).toBe(lease!.leaseId);
        expect(client.has('ItemA')).toBe(true);
        await client.close();
        expect(lied.count).toBeGreaterThanOrEqual(2);

        // Restarted offline on the same store: no offset from the lying Date was kept.
        const restarted = clientOn(service, path, { fetch: offline });
        const [restored] = (await restarted.restore()).leases;
        expect(restored?.leaseId).toBe(lease!.leaseId);
        expect(Math.abs(restored!.expiresAt - renewed.expiresAt)).toBeLessThanOrEqual(SLACK_MS);
        await restarted.close();
      },
    );

    it('at 1970: checkout takes the genuine lease', async () => {
      lieAboutDate(service, () => new Date(0).toUTCString());
      const client = clientOn(service, storePath());
      const [lease] = (await client.checkout(['ItemA'])).leases;
      expect(lease?.servedBy).toBe(service);
      expect(client.has('ItemA')).toBe(true);
      await client.close();
    });

    it('no Date header and a lying one alike leave has() on the true time', async () => {
      lieAboutDate(service, (real) => shiftedDate(real, -5 * HOUR));
      const client = clientOn(service, storePath());
      await client.checkout(['ItemA']);
      // Judged on the services' (signed) time, the lease is 8 h long, not 3.
      expect(client.status().leases[0]!.expiresAt - Date.now()).toBeGreaterThan(LEASE_MS - MINUTE);
      await client.close();
    });
  },
);

describe('a JWK set answer without a fresh token', () => {
  it("whose Date disagrees with the signed anchor does not move the client's clock", async () => {
    // The client learns the services' time from a genuine standby lease (main's authz broken),
    // then verifies a main lease of another client, which fetches main's JWK set through a
    // proxy whose clock is 9 h ahead: taken for the services' time, it would end the standby
    // lease at once.
    const other = clientOn('main', storePath());
    const [mainLease] = (await other.checkout(['ItemB'])).leases;
    await other.close();

    network.use(http.get(`${mock.server.info.mainUrl}/authz/.jwt`, () => HttpResponse.error()));
    const lied = lieAboutDate('main', (real) => shiftedDate(real, 9 * HOUR), [
      '/.well-known/jwks.json',
    ]);
    const client = clientOn('main', storePath());
    const [lease] = (await client.checkout(['ItemA'])).leases;
    expect(lease?.servedBy).toBe('standby');
    expect((await client.verify(mainLease!.token, { service: 'main' })).item).toBe('ItemB');
    expect(lied.count).toBe(1);
    expect(client.has('ItemA')).toBe(true);
    const held = client.status().leases.find((l) => l.item === 'ItemA');
    expect(Math.abs(held!.expiresAt - (Date.now() + LEASE_MS))).toBeLessThanOrEqual(SLACK_MS);
    await client.close();
  });
});
