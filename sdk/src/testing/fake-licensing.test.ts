import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { computeServiceKeyHash } from '../auth/service-key-hash.js';
import { createLicensingClient } from '../client/create-licensing-client.js';
import type { LicensingClient } from '../client/licensing-client.js';
import { isLicensingError } from '../errors.js';
import type { LicensingClientOptions } from '../options/licensing-client.js';
import { createFakeLicensing, type FakeLicensing } from './fake-licensing.js';
import { scenarioHandlers } from './scenario-handlers.js';

// The fakes as the SDK meets them (its real failover, ID tokens, chain and signature checks) and
// as the wire protocol says a service answers (docs/protocol.md).
const urls = {
  mainUrl: 'https://main.licensing.invalid',
  standbyUrl: 'https://standby.licensing.invalid',
  idpUrl: 'https://idp.licensing.invalid',
};
const server = setupServer();
const clients: LicensingClient[] = [];
let fake: FakeLicensing;
let keysMade = 0;

beforeAll(async () => {
  const generateKey = crypto.subtle.generateKey.bind(crypto.subtle);
  vi.spyOn(crypto.subtle, 'generateKey').mockImplementation(((
    ...args: Parameters<typeof generateKey>
  ) => {
    keysMade += 1;
    return generateKey(...args);
  }) as typeof crypto.subtle.generateKey);
  fake = await createFakeLicensing(urls);
  server.listen({ onUnhandledRequest: 'error' });
});
afterEach(async () => {
  server.resetHandlers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(() => {
  server.close();
  vi.restoreAllMocks();
});

/** A client on the fakes (Strategy A, fast retries), closed after the test. */
function clientOn(
  services: FakeLicensing,
  overrides: Partial<LicensingClientOptions> = {},
): LicensingClient {
  const client = createLicensingClient({
    mainUrl: urls.mainUrl,
    standbyUrl: urls.standbyUrl,
    auth: { idToken: () => services.idToken('qa-user') },
    trust: { rootCertificates: services.roots },
    hardwareId: 'pc-7',
    ...overrides,
    failover: { backoffBaseMs: 1, backoffMaxMs: 1, attemptTimeoutMs: 500, ...overrides.failover },
  });
  clients.push(client);
  return client;
}

/** A fake with its own state (main's catalogue, the standby's state), installed alone. */
async function installed(options: Partial<Parameters<typeof createFakeLicensing>[0]> = {}) {
  const services = await createFakeLicensing({ ...urls, ...options });
  server.resetHandlers(...services.handlers);
  return services;
}

/** `code` of an SDK error, else the error itself. */
const codeOf = (error: unknown) => (isLicensingError(error) ? error.code : error);

describe('createFakeLicensing, through the SDK', () => {
  it('makes its five keys once per process, however many fakes there are', async () => {
    expect(keysMade).toBe(5);
    const again = await createFakeLicensing({ ...urls, standby: 'dormant' });
    expect(keysMade).toBe(5);
    expect(again.keys.main.jwk).toEqual(fake.keys.main.jwk);
  });

  it('main serves a verified lease, chained to the main root, with the echoes', async () => {
    const services = await installed();
    const { leases, denied } = await clientOn(services).checkout(['ItemA', 'ItemB']);
    expect(denied).toEqual([]);
    expect(leases.map((lease) => [lease.item, lease.servedBy])).toEqual([
      ['ItemA', 'main'],
      ['ItemB', 'main'],
    ]);
    const { claims } = leases[0]!;
    expect(claims).toMatchObject({ iss: urls.mainUrl, sub: 'qa-user', hw: 'pc-7', ItemA: true });
    expect(claims.exp - claims.iat).toBe(28_800);
    expect(claims.rfr).toBe(claims.iat + 21_600);
  });

  it('main leases fail the chain check without the main root', async () => {
    const services = await installed();
    const standbyOnly = services.roots.filter((root) => root.service === 'standby');
    const client = clientOn(services, { trust: { rootCertificates: standbyOnly } });
    const error = await client.checkout(['ItemA']).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TOKEN_INVALID', reason: 'chain' });
  });

  it('the standby serves while main is down, and renews and releases there', async () => {
    const services = await installed();
    server.use(...scenarioHandlers('main-down', urls));
    const client = clientOn(services);
    const { leases } = await client.checkout(['ItemA']);
    expect(leases[0]!.servedBy).toBe('standby');
    expect(leases[0]!.claims.iss).toBe(urls.standbyUrl);
    const renewed = await client.renew(leases[0]!);
    expect(renewed.leaseId).toBe(leases[0]!.leaseId);
    await client.release(renewed);
  });

  it('main denies what its catalogue lacks, grant() adds and revoke() takes away', async () => {
    const services = await installed({ items: ['ItemA'] });
    const client = clientOn(services);
    const first = await client.checkout(['ItemA', 'ItemB']);
    expect(first.leases.map((lease) => lease.item)).toEqual(['ItemA']);
    expect(first.denied).toEqual([
      { item: 'ItemB', code: 'noLicenseFound', message: 'No license found for ItemB' },
    ]);
    services.grant('qa-user', 'ItemB');
    const granted = await client.checkout(['ItemB']);
    expect(granted.leases[0]!.item).toBe('ItemB');
    const licenseId = granted.leases[0]!.licenseId;
    expect((await client.checkout(['ItemB'])).leases[0]!.licenseId).toBe(licenseId);
    services.revoke('qa-user', 'ItemA');
    services.revoke('qa-user', 'ItemB');
    const revoked = await client.checkout(['ItemA', 'ItemB']);
    expect(revoked.leases).toEqual([]);
    expect(revoked.denied.map((item) => item.item)).toEqual(['ItemA', 'ItemB']);
    // Another user keeps the catalogue; the standby grants every item to anyone.
    const other = clientOn(services, { auth: { idToken: () => services.idToken('other-user') } });
    expect((await other.checkout(['ItemA'])).leases).toHaveLength(1);
    server.use(...scenarioHandlers('main-down', urls));
    expect((await clientOn(services).checkout(['ItemB'])).leases[0]!.servedBy).toBe('standby');
  });

  it('a dormant standby refuses (STANDBY_DORMANT) until setStandby("active")', async () => {
    const services = await installed({ standby: 'dormant' });
    server.use(...scenarioHandlers('main-down', urls));
    const error = await clientOn(services)
      .checkout(['ItemA'])
      .catch((e: unknown) => e);
    expect(codeOf(error)).toBe('STANDBY_DORMANT');
    services.setStandby('active');
    expect((await clientOn(services).checkout(['ItemA'])).leases[0]!.servedBy).toBe('standby');
  });

  it('an expired ID token: main refuses it, the standby takes it for 24 hours', async () => {
    const services = await installed();
    const expiredFor = (seconds: number) => () =>
      services.idToken('qa-user', { expiresInSeconds: -seconds });
    const onMain = await clientOn(services, { auth: { idToken: expiredFor(3600) } })
      .checkout(['ItemA'])
      .catch((e: unknown) => e);
    expect(codeOf(onMain)).toBe('UNAUTHORIZED');
    server.use(...scenarioHandlers('main-down', urls));
    const inGrace = await clientOn(services, { auth: { idToken: expiredFor(23 * 3600) } }).checkout(
      ['ItemA'],
    );
    expect(inGrace.leases[0]!.servedBy).toBe('standby');
    const pastGrace = await clientOn(services, { auth: { idToken: expiredFor(25 * 3600) } })
      .checkout(['ItemA'])
      .catch((e: unknown) => e);
    // The SDK does not send a token past the grace; the fake standby would refuse it.
    expect(codeOf(pastGrace)).toBe('ID_TOKEN_EXPIRED');
    const sent = async (seconds: number) =>
      (
        await fetch(`${urls.standbyUrl}/enabled`, {
          headers: { authorization: `IdToken ${await expiredFor(seconds)()}` },
        })
      ).status;
    expect([await sent(24 * 3600 - 5), await sent(24 * 3600 + 5)]).toEqual([200, 401]);
  });

  it('accepts the ServiceKeyHash of main’s key (sub "service")', async () => {
    const services = await installed();
    expect(await computeServiceKeyHash(services.keys.main.publicKeyPem)).toMatch(/^[0-9a-f]{64}$/);
    const client = clientOn(services, {
      auth: { servicePublicKeyPem: services.keys.main.publicKeyPem },
    });
    expect((await client.checkout(['ItemA'])).leases[0]!.claims.sub).toBe('service');
    const wrong = clientOn(services, { auth: { serviceKeyHash: 'ab'.repeat(32) } });
    expect(codeOf(await wrong.checkout(['ItemA']).catch((e: unknown) => e))).toBe('UNAUTHORIZED');
  });

  it('main’s product checkout grants and denies per line', async () => {
    const services = await installed({ items: ['ItemA'] });
    const results = await clientOn(services).checkoutProducts([
      { productName: 'ItemA', qty: 1, qtyDimension: 'SEATS' },
      { productName: 'ItemZ', qty: 1, qtyDimension: 'SEATS' },
    ]);
    expect(results.map((r) => [r.productName, r.granted, r.lease?.servedBy])).toEqual([
      ['ItemA', true, 'main'],
      ['ItemZ', false, undefined],
    ]);
  });

  it('runs on an injected clock: leases, Date headers and ID tokens on that time', async () => {
    const T = Date.UTC(2031, 5, 1);
    const services = await installed({ now: () => T });
    const client = clientOn(services, { now: () => T });
    const { leases } = await client.checkout(['ItemA']);
    expect(leases[0]!.claims.iat).toBe(T / 1000);
    const response = await fetch(`${urls.mainUrl}/.well-known/jwks.json`);
    expect(Date.parse(response.headers.get('date')!)).toBe(T);
  });
});

describe('a drill on other URLs than the client’s', () => {
  it('changes nothing and says so, naming both URLs (localhost vs 127.0.0.1)', async () => {
    const loopback = {
      mainUrl: 'http://127.0.0.1:8787/main',
      standbyUrl: 'http://127.0.0.1:8787/standby',
    };
    const services = await createFakeLicensing(loopback);
    server.resetHandlers(...services.handlers);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      server.use(
        ...scenarioHandlers('main-down', {
          mainUrl: 'http://localhost:8787/main',
          standbyUrl: 'http://localhost:8787/standby',
        }),
      );
      const client = clientOn(services, loopback);
      expect((await client.checkout(['ItemA'])).leases[0]!.servedBy).toBe('main');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(
        /breaks http:\/\/localhost:8787\/main, but the app sent GET http:\/\/127\.0\.0\.1:8787\/main\/authz\/\.jwt\?ItemA/,
      );
    } finally {
      warn.mockRestore();
    }
  });
});

describe('createFakeLicensing, on the wire', () => {
  const auth = async (sub = 'qa-user') => ({ authorization: `IdToken ${await fake.idToken(sub)}` });

  beforeAll(() => {
    server.resetHandlers(...fake.handlers);
  });
  afterEach(() => {
    server.resetHandlers(...fake.handlers);
    fake.setStandby('active');
  });

  it('publishes each service’s JWK with x5c [signing, root] and a kid', async () => {
    const main = await (await fetch(`${urls.mainUrl}/.well-known/jwks.json`)).json();
    expect(main).toEqual({ keys: [fake.keys.main.jwk] });
    expect(fake.keys.main.jwk).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });
    expect(fake.keys.main.jwk.x5c).toHaveLength(2);
    // The standby's needs credentials; main's is public.
    expect((await fetch(`${urls.standbyUrl}/.well-known/jwks.json`)).status).toBe(401);
    const standby = await fetch(`${urls.standbyUrl}/.well-known/jwks.json`, {
      headers: await auth(),
    });
    expect(await standby.json()).toEqual({ keys: [fake.keys.standby.jwk] });
  });

  it('answers /authz/.jwt by GET and by POST form, one token per item, joined by &', async () => {
    const get = await fetch(`${urls.standbyUrl}/authz/.jwt?ItemA&ItemB&version=3`, {
      headers: await auth(),
    });
    expect(get.headers.get('content-type')).toBe('application/jwt');
    expect((await get.text()).split('&')).toHaveLength(2);
    const post = await fetch(`${urls.mainUrl}/authz/.jwt`, {
      method: 'POST',
      headers: { ...(await auth()), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'ItemA=;licenseId=L1&hw=pc-1;name=Desk',
    });
    const [token] = (await post.text()).split('&');
    const claims = JSON.parse(atob(token!.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    expect(claims).toMatchObject({ ItemA: true, lic: 'L1', hw: 'pc-1', hwName: 'Desk' });
  });

  it('refuses what a real service refuses, with ApiError bodies', async () => {
    const none = await fetch(`${urls.mainUrl}/authz/.jwt?ItemA`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: 'unauthorized' });
    expect(none.headers.get('www-authenticate')).toBe(
      'IdToken realm="main", Bearer realm="main", ServiceKeyHash realm="main"',
    );
    const garbage = await fetch(`${urls.standbyUrl}/authz/.jwt?ItemA`, {
      headers: { authorization: 'IdToken not.a.token' },
    });
    expect([garbage.status, (await garbage.json()).error]).toEqual([401, 'invalid_token']);
    const empty = await fetch(`${urls.mainUrl}/authz/.jwt`, { headers: await auth() });
    expect([empty.status, (await empty.json()).error]).toEqual([400, 'invalid_request']);
    const claimName = await fetch(`${urls.mainUrl}/authz/.jwt?exp`, { headers: await auth() });
    expect(claimName.status).toBe(400);
    const unknownKey = await fetch(`${urls.standbyUrl}/authz/.jwt?ItemA`, {
      headers: { ...(await auth()), 'service-signingkeyid': 'nope' },
    });
    expect([unknownKey.status, (await unknownKey.json()).error]).toEqual([
      400,
      'unknown_signing_key',
    ]);
    const json = await fetch(`${urls.standbyUrl}/authz/.json?ItemA`, { headers: await auth() });
    expect([json.status, (await json.json()).error]).toEqual([404, 'not_found']);
    const management = await fetch(`${urls.standbyUrl}/enabled`, {
      method: 'POST',
      headers: { 'service-apikey': 'key' },
    });
    expect([management.status, (await management.json()).error]).toEqual([401, 'invalid_api_key']);
  });

  it('the standby’s status checks and dormant 403s follow setStandby', async () => {
    const status = async () =>
      Promise.all(
        ['enabled', 'disabled'].map(async (route) =>
          (await fetch(`${urls.standbyUrl}/${route}`, { headers: await auth() })).json(),
        ),
      );
    expect(await status()).toEqual([true, false]);
    fake.setStandby('dormant');
    expect(await status()).toEqual([false, true]);
    for (const route of ['authz/.jwt?ItemA', '.well-known/jwks.json']) {
      const response = await fetch(`${urls.standbyUrl}/${route}`, { headers: await auth() });
      expect([response.status, await response.json()]).toEqual([
        403,
        { error: 'standby_dormant', error_description: 'The standby licensing service is dormant' },
      ]);
    }
    // Authentication comes first, as on the real service.
    expect((await fetch(`${urls.standbyUrl}/authz/.jwt?ItemA`)).status).toBe(401);
  });

  it('fakes the ID-token issuer at idpUrl, as the mock server’s', async () => {
    const answer = await fetch(`${urls.idpUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'from-http' }),
    });
    const { id_token: token } = (await answer.json()) as { id_token: string };
    const lease = await fetch(`${urls.mainUrl}/authz/.jwt?ItemA`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(lease.status).toBe(200);
    const discovery = await (await fetch(`${urls.idpUrl}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({
      issuer: urls.idpUrl,
      jwks_uri: `${urls.idpUrl}/.well-known/jwks.json`,
    });
    const bad = await fetch(`${urls.idpUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(bad.status).toBe(400);
  });
});

describe('createFakeLicensing options', () => {
  it.each([
    ['no options', undefined, /`options`/],
    ['no mainUrl', { standbyUrl: urls.standbyUrl }, /`mainUrl`/],
    ['a relative standbyUrl', { mainUrl: urls.mainUrl, standbyUrl: '/standby' }, /`standbyUrl`/],
    [
      'standbyUrl equal to mainUrl',
      { mainUrl: urls.mainUrl, standbyUrl: `${urls.mainUrl}/` },
      /differ/,
    ],
    ['an unknown option', { ...urls, catalog: [] }, /Unknown option `options.catalog`/],
    ['a reserved item', { ...urls, items: ['ItemA', 'hw'] }, /`items\[1\]`/],
    ['a bad standby state', { ...urls, standby: 'on' }, /`standby`/],
  ])('refuses %s with INVALID_ARGUMENT naming it', async (_label, options, message) => {
    const error = await createFakeLicensing(options as never).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((error as Error).message).toMatch(message);
  });

  it('refuses bad arguments to its methods', async () => {
    expect(() => fake.setStandby('on' as never)).toThrow(/`state`/);
    expect(() => fake.grant('', 'ItemA')).toThrow(/`sub`/);
    expect(() => fake.revoke('qa-user', 'iss')).toThrow(/`item`/);
    await expect(fake.idToken('qa-user', { expiresInSeconds: 1.5 })).rejects.toThrow(
      /expiresInSeconds/,
    );
  });
});
