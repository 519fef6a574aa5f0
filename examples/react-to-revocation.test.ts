// Runs examples/react-to-revocation.ts against an in-process mock server whose catalogue does not
// list the item: the app checks out its provisioned license, follows the license's feed, and on
// the revocation (made through the admin API while it follows) releases the lease and stops.

import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { main } from './react-to-revocation.js';

let mock: RunningServer;
let adminUrl: string;

beforeAll(async () => {
  mock = await startServer({ port: 0, state: 'active', admin: true, items: ['ItemA'] });
  adminUrl = mock.info.mainUrl.replace(/\/main$/, '/admin');
});
afterAll(() => mock.close());
afterEach(() => {
  vi.restoreAllMocks();
});

it('releases the lease and turns the feature off when LicenseRevoked arrives', async () => {
  const lines: string[] = [];
  const fetchSpy = vi.spyOn(globalThis, 'fetch');
  const report = await main({
    ...mock.info,
    adminUrl,
    item: 'Pro',
    user: 'rita',
    log: (line) => lines.push(line),
    async onFollowing(licenseId) {
      // The back office revokes the license while the app follows its feed.
      const res = await fetch(`${adminUrl}/main/licenses/${licenseId}`, { method: 'DELETE' });
      expect(res.status).toBe(204);
    },
  });

  // The license is gone; the lease had come from main, under that license.
  const licenses = (await (await fetch(`${adminUrl}/main/licenses?sub=rita`)).json()) as unknown[];
  expect(licenses).toEqual([]);
  expect(report.lease.servedBy).toBe('main');
  expect(report.lease.licenseId).toBe(report.licenseId);
  expect(report.events).toEqual(['LicenseProvisioned', 'LicenseRevoked']);
  expect(report.featureTimeline).toEqual([true, false]);
  expect(report.afterRevocation).toBe('noLicenseFound');

  // The release went to main, naming the lease: the SDK calls fetch for it.
  const releases = fetchSpy.mock.calls
    .map(([input]) => String(input instanceof Request ? input.url : input))
    .filter((url) => url.includes('release') && url.includes(report.lease.leaseId));
  expect(releases).toEqual([expect.stringContaining(`${mock.info.mainUrl}/authz/.jwt`)]);
  expect(lines).toContain(`license ${report.licenseId} revoked: lease released, Pro turned off`);
});

it('stops with the signal when no revocation comes', async () => {
  const controller = new AbortController();
  const run = main({
    ...mock.info,
    adminUrl,
    item: 'Pro',
    user: 'sam',
    log: () => {},
    signal: controller.signal,
    onFollowing: () => controller.abort(new Error('gave up waiting')),
  });
  await expect(run).rejects.toThrow('gave up waiting');
});

it('stops, saying to start the mock with --items, when main grants the item from its catalogue', async () => {
  // A mock without --items: its main grants every item, license or not.
  const open = await startServer({ port: 0, state: 'active', admin: true });
  try {
    const openAdmin = open.info.mainUrl.replace(/\/main$/, '/admin');
    const onFollowing = vi.fn();
    await expect(
      main({
        ...open.info,
        adminUrl: openAdmin,
        item: 'Pro',
        user: 'ola',
        log: () => {},
        onFollowing,
      }),
    ).rejects.toThrow(/its catalogue lists Pro.*--items ItemA,ItemB/);
    // It stopped before provisioning or waiting for a revocation that could not matter.
    expect(onFollowing).not.toHaveBeenCalled();
    const licenses = await (await fetch(`${openAdmin}/main/licenses`)).json();
    expect(licenses).toEqual([]);
  } finally {
    await open.close();
  }
});
