// renew(): the renewal's wire format, the same lease id, the leaseRenewed hook.

import { describe, expect, it } from 'vitest';
import { authzHandler, makeClient } from '../../test/helpers/licensing-test-setup.js';
import { useMswServer } from '../../test/helpers/msw-server.js';
import { rejection } from '../../test/helpers/rejection.js';

const server = useMswServer();

describe('renew', () => {
  it('renews with <item>=;leaseId and keeps the lease id', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client, named } = makeClient();
    const [lease] = (await client.checkout(['ItemA'])).leases;
    const renewed = await client.renew(lease!);
    expect(renewed.leaseId).toBe(lease!.leaseId);
    expect(new URL(main.hits.requests[1]!.url).search).toBe(
      `?ItemA=;leaseId=${lease!.leaseId}&hw=H1&version=1.0`,
    );
    expect(named('leaseRenewed')).toEqual([{ previous: lease, lease: renewed, reissued: false }]);
  });

  it('rejects what is not a lease with INVALID_ARGUMENT before any request', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = makeClient();
    expect(await rejection(client.renew({} as never))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(main.hits.count).toBe(0);
  });
});
