import { createPublicKey, verify } from 'node:crypto';
import { readdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeJwt } from '../../test/helpers/decode-jwt.js';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { buildApp } from '../app.js';

const START = Date.UTC(2031, 5, 1);
const osThreads = () => readdirSync('/proc/self/task').length;

interface Jwk {
  kid: string;
  n: string;
  e: string;
}

/** The answers of one app to the same calls, with the random ids blanked out. */
async function leaseAnswers(app: FastifyInstance) {
  const auth = { authorization: `IdToken ${signTestIdToken(app, { claims: { sub: 'bob' } })}` };
  await app.inject({
    method: 'PUT',
    url: '/standby/enabled',
    headers: { 'service-apikey': app.apiKey },
  });
  const shape = (body: string) =>
    body.split('&').map((token) => {
      const { header, payload } = decodeJwt(token);
      // Same claims in the same order; keys, lic and jti differ between apps and calls.
      const kid = header.kid === app.keyring.main.kid ? 'main key' : typeof header.kid;
      const ids = { lic: typeof payload.lic, jti: typeof payload.jti };
      return { header: { ...header, kid }, payload: { ...payload, ...ids } };
    });
  const standby = await app.inject({
    url: '/standby/authz/.jwt?ItemA&ItemB=;licenseId=L2&ItemC=;leaseId=J3&hw=H1;name=Desk',
    headers: auth,
  });
  const release = await app.inject({
    url: '/standby/authz/.jwt?release&J1&J2',
    headers: auth,
  });
  const main = await app.inject({ url: '/main/authz/.jwt?ItemA&Unknown&ItemB', headers: auth });
  const checkout = await app.inject({
    method: 'POST',
    url: '/main/licensing/actions/checkout',
    headers: auth,
    payload: ['ItemA', 'Unknown', 'ItemB'].map((productName) => ({
      productName,
      qty: 1,
      qtyDimension: 'SEATS',
    })),
  });
  const bad = await app.inject({
    url: '/standby/authz/.jwt?consumptionMode=x&ItemA',
    headers: auth,
  });
  return {
    standby: [standby.statusCode, shape(standby.body)],
    release: [release.statusCode, shape(release.body)],
    main: [main.statusCode, shape(main.body)],
    checkout: [
      checkout.statusCode,
      (checkout.json() as Array<{ jwt?: string }>).map(({ jwt, ...line }) => ({
        ...line,
        ...(jwt ? { jwt: shape(jwt) } : {}),
      })),
    ],
    bad: [bad.statusCode, bad.json()],
  };
}

describe('lease signing on worker threads', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const build = (signingThreads: number) =>
    buildApp({ items: ['ItemA', 'ItemB'], now: () => START, signingThreads });

  it('answers exactly as signing on the event loop does', async () => {
    app = await build(0);
    expect(app.signingPool.threads).toBe(0);
    const inline = await leaseAnswers(app);
    await app.close();
    app = await build(2);
    expect(app.signingPool.threads).toBe(2);
    const pooled = await leaseAnswers(app);
    expect(pooled).toEqual(inline);
    expect(inline.standby[0]).toBe(200);
    expect(inline.bad[0]).toBe(400);
  });

  it('signs with a key from POST /signing-keys on the next call', async () => {
    app = await build(2);
    const auth = { authorization: `IdToken ${signTestIdToken(app)}` };
    const manage = { 'service-apikey': app.apiKey };
    await app.inject({ method: 'PUT', url: '/standby/enabled', headers: manage });
    await app.inject({ url: '/standby/authz/.jwt?ItemA', headers: auth });
    const created = await app.inject({
      method: 'POST',
      url: '/standby/signing-keys',
      headers: manage,
    });
    const { keyId } = created.json() as { keyId: string };
    const jwks = (await app.inject({ url: '/standby/.well-known/jwks.json', headers: auth })).json()
      .keys as Jwk[];
    const jwk = jwks.find((k) => k.kid === keyId)!;
    const publicKey = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
    for (const headers of [auth, { ...auth, 'service-signingkeyid': keyId }]) {
      const token = (await app.inject({ url: '/standby/authz/.jwt?ItemA', headers })).body;
      const [h, p, s] = token.split('.') as [string, string, string];
      expect(decodeJwt(token).header.kid).toBe(keyId);
      expect(
        verify('sha256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url')),
      ).toBe(true);
    }
  });

  it('ends its threads when the app closes', async () => {
    // A first app starts what stays for the whole process (libuv's pool for key generation).
    await (await build(0)).close();
    const before = osThreads();
    app = await build(2);
    const auth = { authorization: `IdToken ${signTestIdToken(app)}` };
    expect((await app.inject({ url: '/main/authz/.jwt?ItemA', headers: auth })).statusCode).toBe(
      200,
    );
    expect(osThreads()).toBeGreaterThanOrEqual(before + 2);
    await app.close();
    app = undefined;
    // A worker's OS thread can outlive its 'exit' event by a moment: wait for it, not for ever.
    await vi.waitFor(() => expect(osThreads()).toBe(before), { timeout: 5000, interval: 20 });
  });

  it('refuses a bad thread count naming the option', async () => {
    await expect(buildApp({ signingThreads: -1 })).rejects.toThrow(/signingThreads/);
    await expect(buildApp({ signingThreads: 2.5 })).rejects.toThrow(TypeError);
  });
});
