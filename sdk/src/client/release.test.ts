// release(): the release's wire format; the store keeps a lease until a service answered (see
// test/trust/quitting-offline.test.ts for the offline side).

import { describe, expect, it } from 'vitest';
import { authzHandler, makeClient } from '../../test/helpers/licensing-test-setup.js';
import { useMswServer } from '../../test/helpers/msw-server.js';

const server = useMswServer();

describe('release', () => {
  it('releases with release&<id> and no longer holds the lease', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = makeClient();
    const [lease] = (await client.checkout(['ItemA'])).leases;
    expect(client.has('ItemA')).toBe(true);
    await client.release(lease!);
    expect(new URL(main.hits.requests[1]!.url).search).toBe(`?release&${lease!.leaseId}`);
    expect(client.has('ItemA')).toBe(false);
  });
});
