import { isLicensingError } from '@standby-licensing/sdk';
import { clientFor, type MockLicensing, startMockLicensing } from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing(['ItemA', 'ItemB', 'Pro']);
});
afterAll(() => mock.close());

describe('SDK against the mock main service', () => {
  it('checks out, renews and releases leases on main, verified to the embedded main root', async () => {
    const { client } = clientFor(mock);
    const { leases, denied } = await client.checkout(['ItemA', 'ItemB']);
    expect(denied).toEqual([]);
    expect(leases.map((l) => [l.item, l.servedBy])).toEqual([
      ['ItemA', 'main'],
      ['ItemB', 'main'],
    ]);
    const lease = leases[0]!;
    expect(lease.claims).toMatchObject({ ItemA: true, hw: 'hw-1', version: '1.2.3' });
    expect(lease.expiresAt - lease.claims.iat * 1000).toBe(8 * 3_600_000);
    expect(lease.refreshAt).toBeLessThan(lease.expiresAt);

    const renewed = await client.renew(lease);
    expect(renewed.leaseId).toBe(lease.leaseId);
    expect(renewed.servedBy).toBe('main');
    await client.release(leases);
    expect(client.activeService).toBe('main');
    await client.close();
  });

  it('reports an item outside the catalogue as denied, not as an outage', async () => {
    const { client, seen } = clientFor(mock);
    const { leases, denied } = await client.checkout(['ItemA', 'Unknown']);
    expect(leases.map((l) => l.item)).toEqual(['ItemA']);
    expect(denied).toMatchObject([{ item: 'Unknown', code: 'noLicenseFound' }]);
    expect(seen).not.toContain('failover');
    await client.close();
  });

  it('re-verifies a stored token and refuses a tampered one', async () => {
    const { client } = clientFor(mock);
    const [lease] = (await client.checkout(['ItemA'])).leases;
    const again = await client.verify(lease!.token);
    expect(again).toMatchObject({ item: 'ItemA', leaseId: lease!.leaseId, servedBy: 'main' });
    const [h, p, s] = lease!.token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 86_400 })).toString('base64url')}.${s}`;
    const error = await client.verify(forged, { item: 'ItemA' }).catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('TOKEN_INVALID');
    await client.close();
  });

  it('checks products out through POST /licensing/actions/checkout', async () => {
    const { client } = clientFor(mock);
    const result = await client.checkoutProducts([
      { productName: 'Pro', qty: 1, qtyDimension: 'SEATS' },
      { productName: 'Nope', qty: 1, qtyDimension: 'SEATS' },
    ]);
    expect(result[0]).toMatchObject({ productName: 'Pro', granted: true, claims: { Pro: true } });
    expect(result[1]).toMatchObject({
      productName: 'Nope',
      granted: false,
      errorCode: 'noLicenseFound',
    });
    await client.close();
  });
});
