import { isLicensingError } from '@standby-licensing/sdk';
import {
  clientFor,
  closedPort,
  createSigningKey,
  type MockLicensing,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
let downMainUrl: string;
beforeAll(async () => {
  mock = await startMockLicensing();
  downMainUrl = `http://127.0.0.1:${await closedPort()}/main`;
});
afterAll(() => mock.close());

describe('root pinning with Service-SigningKeyId', () => {
  it('an app embedding the first root keeps verifying after a new standby key becomes the default', async () => {
    const first = mock.standbyRoot;
    const { client: oldApp } = clientFor(mock, {
      mainUrl: downMainUrl,
      trust: { rootCertificates: [first] },
      failover: { mainAttempts: 1 },
    });
    expect((await oldApp.checkout(['ItemA'])).leases[0]!.servedBy).toBe('standby');

    const second = await createSigningKey(mock.server);
    expect(second.keyId).not.toBe(first.keyId);

    const { leases } = await oldApp.checkout(['ItemA']);
    expect(leases[0]!.servedBy).toBe('standby');
    expect(await oldApp.renew(leases[0]!)).toMatchObject({ servedBy: 'standby' });

    // A newer app embeds the second root and gets leases signed by the new key.
    const { client: newApp } = clientFor(mock, {
      mainUrl: downMainUrl,
      trust: { rootCertificates: [second] },
      failover: { mainAttempts: 1 },
    });
    expect((await newApp.checkout(['ItemA'])).leases[0]!.servedBy).toBe('standby');

    // Without the key id, the old root cannot verify the new default key's leases.
    const { client: unpinned } = clientFor(mock, {
      mainUrl: downMainUrl,
      trust: { rootCertificates: [{ pem: first.pem }] },
      failover: { mainAttempts: 1 },
    });
    const error = await unpinned.checkout(['ItemA']).catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('TOKEN_INVALID');
    await Promise.all([oldApp.close(), newApp.close(), unpinned.close()]);
  });
});
