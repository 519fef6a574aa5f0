// Clock skew, online (DECISIONS.md "Lease trust (third wave)"): a client whose clock is off the
// services' by up to 24 h either way checks out, renews and verifies fresh leases, because every
// time check of an online answer is judged on the services' time (the `Date` header, or a fresh
// lease's signed `iat` where there is no `Date` or it disagrees: fourth wave);
// `expiresAt`/`refreshAt` are local times. Rules:
// sdk/src/client/accept-token.ts (learnServiceTime), sdk/src/lease/trusted-clock.ts (judgeAt),
// sdk/src/transport/licensing-transport.ts (readServiceTime), sdk/src/lease/lease.ts (toLease).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Lease, LicensingClientOptions } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import {
  createLyingNetwork,
  fetchReal,
  rewrite,
  shiftedDate,
} from '@test/helpers/lying-network.js';
import {
  clientFor,
  closedPort,
  createSigningKey,
  type MockLicensing,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const LEASE_MS = 8 * HOUR;
/** `Date` has whole seconds and an answer takes time: local times may be off by this much. */
const SLACK_MS = 3_000;

let mock: MockLicensing;
let folder: string;
let files = 0;
/** A standby signing key created just before the tests: its certificates start "now". */
let freshKey: { pem: string; keyId: string };
let deadMain: string;
const network = createLyingNetwork();
beforeAll(async () => {
  mock = await startMockLicensing();
  freshKey = await createSigningKey(mock.server);
  deadMain = `http://127.0.0.1:${await closedPort()}/main`;
  folder = await mkdtemp(join(tmpdir(), 'trust-skew-'));
  network.listen();
});
afterEach(() => network.resetHandlers());
afterAll(async () => {
  network.close();
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

type Service = 'main' | 'standby';

/**
 * A client whose clock is `skewMs` off the services' (negative: behind), on its own lease store
 * file. For the standby, main is a closed port, so the fresh standby key signs every lease.
 */
function skewedClient(
  service: Service,
  skewMs: number,
  extra: Partial<LicensingClientOptions> = {},
) {
  files += 1;
  const path = join(folder, `store-${files}.json`);
  const now = () => Date.now() + skewMs;
  const { client } = clientFor(mock, {
    leaseStore: createFileLeaseStore(path),
    now,
    trust: {
      rootCertificates: [freshKey, mock.standbyRoot, { pem: mock.mainRootPem }],
    },
    ...(service === 'standby' ? { mainUrl: deadMain } : {}),
    failover: { mainAttempts: 1 },
    ...extra,
  });
  return { client, now, path };
}

/** The lease's local times are the services' times moved onto the local clock. */
function expectLocalTimes(lease: Lease, localNow: number) {
  expect(Math.abs(lease.expiresAt - (localNow + LEASE_MS))).toBeLessThanOrEqual(SLACK_MS);
  expect(Math.abs(lease.refreshAt - (localNow + 0.75 * LEASE_MS))).toBeLessThanOrEqual(SLACK_MS);
}

/** Checks ItemA out, renews it and verifies it again: all on `service`. */
async function checkoutRenewVerify(client: ReturnType<typeof skewedClient>, service: Service) {
  const lease = (await client.client.checkout(['ItemA'])).leases[0]!;
  expect(lease.servedBy).toBe(service);
  expectLocalTimes(lease, client.now());
  const renewed = await client.client.renew(lease);
  expect([renewed.leaseId, renewed.servedBy]).toEqual([lease.leaseId, service]);
  expectLocalTimes(renewed, client.now());
  const again = await client.client.verify(renewed.token);
  expect(again.leaseId).toBe(lease.leaseId);
  return renewed;
}

/** The `kid` of a token's header. */
function kidOf(token: string): string {
  return JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid;
}

describe.each(['main', 'standby'] as const)('a skewed client on %s', (service) => {
  it('2 minutes behind: checks out, renews and verifies', async () => {
    const client = skewedClient(service, -2 * MINUTE);
    const lease = await checkoutRenewVerify(client, service);
    if (service === 'standby') expect(kidOf(lease.token)).toBe(freshKey.keyId);
    await client.client.close();

    // Restarted offline, on the same store: the offset learnt online is kept, nothing is late.
    const offline = clientFor(mock, {
      leaseStore: createFileLeaseStore(client.path),
      now: client.now,
      trust: { rootCertificates: [freshKey, mock.standbyRoot, { pem: mock.mainRootPem }] },
      fetch: async () => {
        throw new Error('offline');
      },
    });
    const [restored] = (await offline.client.restore()).leases;
    expect(restored?.leaseId).toBe(lease.leaseId);
    expect(Math.abs(restored!.expiresAt - lease.expiresAt)).toBeLessThanOrEqual(SLACK_MS);
    await offline.client.close();
  });

  it.each([
    ['23 h behind', -23 * HOUR],
    ['23 h ahead', 23 * HOUR],
  ])('%s: checks out, renews and verifies, expiresAt local now + 8 h', async (_name, skewMs) => {
    const client = skewedClient(service, skewMs);
    const lease = await checkoutRenewVerify(client, service);
    if (service === 'standby') expect(kidOf(lease.token)).toBe(freshKey.keyId);
    await client.client.close();
  });
});

describe("the services' time from Date", () => {
  /** Answers every `/authz/.jwt` of `service` with `Date` moved by `shiftMs`. */
  function moveDate(service: Service, shiftMs: number) {
    const base = service === 'main' ? mock.server.info.mainUrl : mock.server.info.standbyUrl;
    network.use(
      http.get(`${base}/authz/.jwt`, async ({ request }) => {
        const real = await fetchReal(request);
        const date = shiftedDate(real, shiftMs);
        return rewrite(real, await real.text(), (headers) => headers.set('date', date));
      }),
    );
  }

  it.each(['main', 'standby'] as const)(
    'a lease issued 2 minutes ahead of the Date of its answer (%s): the signed iat stands (fourth wave)',
    async (service) => {
      // Third wave: refused as not yet valid. Fourth wave (DECISIONS "The services' time is the
      // signed one"): a Date more than the tolerance off the fresh token's iat is a proxy's clock.
      moveDate(service, -2 * MINUTE);
      const client = skewedClient(service, 0);
      const [lease] = (await client.client.checkout(['ItemA'])).leases;
      expect(lease!.servedBy).toBe(service);
      expectLocalTimes(lease!, client.now());
      await client.client.close();
    },
  );

  it.each(['main', 'standby'] as const)(
    'a lease issued 45 s ahead of the Date of its answer (%s) is within the tolerance',
    async (service) => {
      moveDate(service, -45_000);
      const client = skewedClient(service, 0);
      expect((await client.client.checkout(['ItemA'])).leases[0]!.servedBy).toBe(service);
      await client.client.close();
    },
  );

  describe.each(['main', 'standby'] as const)('no Date at all (%s)', (service) => {
    it.each([
      ['2 minutes behind', -2 * MINUTE],
      ['23 h behind', -23 * HOUR],
      ['23 h ahead', 23 * HOUR],
    ])("%s: the fresh lease's iat is the services' time", async (_name, skewMs) => {
      let stripped = 0;
      const { mainUrl, standbyUrl } = mock.server.info;
      const routes = [mainUrl, standbyUrl].flatMap((base) => [
        `${base}/authz/.jwt`,
        `${base}/.well-known/jwks.json`,
      ]);
      network.use(
        ...routes.map((route) =>
          http.get(route, async ({ request }) => {
            const real = await fetchReal(request);
            stripped += 1;
            return rewrite(real, await real.text(), (headers) => headers.delete('date'));
          }),
        ),
      );
      const client = skewedClient(service, skewMs);
      await checkoutRenewVerify(client, service);
      expect(stripped).toBeGreaterThanOrEqual(2);
      await client.client.close();
    });
  });
});
