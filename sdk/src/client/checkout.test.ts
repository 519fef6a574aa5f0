// checkout(): the wire format, verified leases in request order, denials, bad arguments. The
// failover around it is tested in failover/strategy-a.test.ts and strategy-b.test.ts.

import { describe, expect, it } from 'vitest';
import { authzHandler, HASH, makeClient, NOW } from '../../test/helpers/licensing-test-setup.js';
import { useMswServer } from '../../test/helpers/msw-server.js';
import { rejection } from '../../test/helpers/rejection.js';

const server = useMswServer();

describe('checkout on a healthy main service', () => {
  it('sends the wire format and returns verified leases in request order', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = makeClient();
    const { leases, denied } = await client.checkout(['ItemA', { item: 'ItemB', licenseId: 'L9' }]);
    expect(denied).toEqual([]);
    expect(leases.map((l) => [l.item, l.servedBy])).toEqual([
      ['ItemA', 'main'],
      ['ItemB', 'main'],
    ]);
    expect(leases[1]!.licenseId).toBe('L9');
    expect(leases[0]!.expiresAt).toBe(NOW + 28_800_000);
    expect(leases[0]!.refreshAt).toBe(NOW + 21_600_000);
    const request = main.hits.requests[0]!;
    expect(new URL(request.url).search).toBe('?ItemA&ItemB=;licenseId=L9&hw=H1&version=1.0');
    expect(request.headers.get('authorization')).toBe(`ServiceKeyHash ${HASH}`);
    expect(request.headers.get('service-signingkeyid')).toBeNull();
    // Each token verified as a lease of its item, bound to this device.
    expect(leases.map((l) => [l.claims.ItemA ?? l.claims.ItemB, l.claims.hw])).toEqual([
      [true, 'H1'],
      [true, 'H1'],
    ]);
    expect(client.activeService).toBe('main');
  });

  it('returns a per-item noLicenseFound as denied, not as an outage', async () => {
    const main = authzHandler('main', ['deny'], undefined, ['ItemB']);
    const standby = authzHandler('standby', ['ok']);
    server.use(main.handler, standby.handler);
    const { client } = makeClient();
    const { leases, denied } = await client.checkout(['ItemA', 'ItemB']);
    expect(leases.map((l) => l.item)).toEqual(['ItemA']);
    expect(denied).toEqual([
      { item: 'ItemB', code: 'noLicenseFound', message: 'No license found' },
    ]);
    expect(main.hits.count).toBe(1);
    expect(standby.hits.count).toBe(0);
  });

  it('rejects bad arguments with INVALID_ARGUMENT before any request', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = makeClient();
    for (const items of [[], [''], ['hw'], ['A', 'A']]) {
      expect(await rejection(client.checkout(items))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    expect(main.hits.count).toBe(0);
  });
});
