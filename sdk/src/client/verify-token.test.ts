// verify(): a stored token verified again against its own service's keys.

import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { fakeServices } from '../../test/helpers/fake-licensing.js';
import { authzHandler, MAIN, makeClient } from '../../test/helpers/licensing-test-setup.js';
import { useMswServer } from '../../test/helpers/msw-server.js';
import { rejection } from '../../test/helpers/rejection.js';

const server = useMswServer();

describe('verify', () => {
  it('re-verifies a stored token against the service named by iss', async () => {
    server.use(authzHandler('main', [503]).handler, authzHandler('standby', ['ok']).handler);
    server.use(
      http.get(`${MAIN}/.well-known/jwks.json`, () => HttpResponse.json(fakeServices.jwks.main)),
    );
    const { client } = makeClient();
    const [lease] = (await client.checkout(['ItemA'])).leases;
    // fake tokens carry iss 'standby'; pass the service explicitly.
    const again = await client.verify(lease!.token, { service: 'standby' });
    expect(again).toMatchObject({ item: 'ItemA', leaseId: lease!.leaseId, servedBy: 'standby' });
    // Main's keys do not verify it: a lease verifies only against its own service's keys.
    expect(await rejection(client.verify(lease!.token, { service: 'main' }))).toMatchObject({
      code: 'TOKEN_INVALID',
    });
  });
});
