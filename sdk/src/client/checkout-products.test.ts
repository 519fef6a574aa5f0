// checkoutProducts(): main's product checkout, never the standby.

import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { signAs } from '../../test/helpers/fake-licensing.js';
import { fakeIdTokens, MAIN, makeClient, NOW } from '../../test/helpers/licensing-test-setup.js';
import { useMswServer } from '../../test/helpers/msw-server.js';
import { rejection } from '../../test/helpers/rejection.js';

const server = useMswServer();

describe('checkoutProducts', () => {
  it('POSTs the products to main with the ID token and verifies granted JWTs', async () => {
    let body: unknown;
    let authorization: string | null = null;
    server.use(
      http.post(`${MAIN}/licensing/actions/checkout`, async ({ request }) => {
        body = await request.json();
        authorization = request.headers.get('authorization');
        const iat = Math.floor(NOW / 1000);
        const jwt = signAs('main', {
          Pro: true,
          jti: 'J-pro',
          lic: 'L-pro',
          hw: 'H1',
          iat,
          exp: iat + 28_800,
        });
        return HttpResponse.json([
          { productName: 'Pro', granted: true, jwt },
          { productName: 'Max', granted: false, errorCode: 'noLicenseFound' },
        ]);
      }),
    );
    const { client } = makeClient({}, { idTokens: fakeIdTokens() });
    const products = [
      { productName: 'Pro', qty: 1, qtyDimension: 'SEATS' as const },
      { productName: 'Max', qty: 2, qtyDimension: 'USE_COUNT' as const },
    ];
    const result = await client.checkoutProducts(products);
    expect(body).toEqual(products);
    expect(authorization).toBe('IdToken idtoken-1');
    expect(result[0]).toMatchObject({
      productName: 'Pro',
      granted: true,
      claims: { Pro: true },
      lease: { item: 'Pro', leaseId: 'J-pro', licenseId: 'L-pro', servedBy: 'main' },
    });
    expect(result[1]).toEqual({ productName: 'Max', granted: false, errorCode: 'noLicenseFound' });
  });

  it('never fails over to the standby and validates its input', async () => {
    server.use(http.post(`${MAIN}/licensing/actions/checkout`, () => HttpResponse.error()));
    const { client } = makeClient({}, { idTokens: fakeIdTokens() });
    const error = await rejection(
      client.checkoutProducts([{ productName: 'Pro', qty: 1, qtyDimension: 'SEATS' }]),
    );
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    const bad = await rejection(
      client.checkoutProducts([{ productName: 'Pro', qty: 0, qtyDimension: 'SEATS' }]),
    );
    expect(bad).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
