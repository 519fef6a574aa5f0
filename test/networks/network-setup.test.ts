// The SDK's network module for proxies and `tls.ca` cannot be loaded (an app bundled into one
// file, Jest without ES modules): a setup to fix, not an outage. The call ends at once with
// INVALID_ARGUMENT (reason `network-setup`) and advice, with no retry and no failover, where it
// used to fail over and end as a SERVICE_UNAVAILABLE whose advice was buried in the cause.
import { createLicensingClient, isLicensingError } from '@standby-licensing/sdk';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { type MockLicensing, mintIdToken, startMockLicensing } from '../helpers/mock-licensing.js';

let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing();
});
afterAll(() => mock.close());
afterEach(() => vi.unstubAllGlobals());

it('ends a checkout with INVALID_ARGUMENT and advice, without failing over', async () => {
  // Where the fence looks for the module (the CommonJS build sets it): nothing there.
  vi.stubGlobal('__NODE_NETWORK_MODULE__', './no-such-module.js');
  const events: string[] = [];
  const client = createLicensingClient({
    mainUrl: mock.server.info.mainUrl,
    standbyUrl: mock.server.info.standbyUrl,
    auth: { idToken: () => mintIdToken(mock.server) },
    trust: { rootCertificates: [mock.standbyRoot, { pem: mock.mainRootPem }] },
    proxy: 'http://127.0.0.1:3128',
    failover: { mainAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 },
    on: {
      attemptFailed: (e) => events.push(`attemptFailed ${e.service}`),
      failover: () => events.push('failover'),
    },
  });
  const error = await client.checkout(['ItemA']).catch((e: unknown) => e);
  await client.close();
  expect(isLicensingError(error)).toBe(true);
  expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'network-setup' });
  expect((error as Error).message).toMatch(
    /network module for proxies and `tls\.ca` on Node could not be loaded .*pass your own `fetch`\.$/,
  );
  expect(events).toEqual([]);
  expect(client.activeService).toBe('main');
});
