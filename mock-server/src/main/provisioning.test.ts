import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeJwt } from '../../test/helpers/decode-jwt.js';
import { getFeed, mintReadToken } from '../../test/helpers/events.js';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { buildApp } from '../app.js';

const START = Date.UTC(2033, 0, 10);

/** The events (not instructions) of a feed, read through the event service. */
async function eventsOf(app: FastifyInstance, feed: string) {
  await app.mainOutbox.idle();
  const token = await mintReadToken(app, { [feed]: true });
  const res = await getFeed(app, feed, token);
  expect(res.status).toBe(200);
  return res.body.objects.filter((item) => item.eventType !== 'instruction');
}

describe('main provisioning (admin API) and its events', () => {
  let app: FastifyInstance;
  const as = (sub: string) => ({
    authorization: `IdToken ${signTestIdToken(app, { claims: { sub } })}`,
  });
  const admin = (method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, payload?: object) =>
    app.inject({ method, url: `/admin${url}`, ...(payload === undefined ? {} : { payload }) });
  const provision = async (body: Record<string, unknown>) => {
    const res = await admin('POST', '/main/licenses', body);
    expect(res.statusCode).toBe(201);
    return res.json() as { licenseId: string; activationCode: string; sub: string; item: string };
  };
  const authz = async (sub: string, query: string) => {
    const res = await app.inject({ url: `/main/authz/.jwt?${query}`, headers: as(sub) });
    expect(res.statusCode).toBe(200);
    return res.body.split('&').map((token) => decodeJwt(token).payload);
  };

  beforeAll(async () => {
    app = await buildApp({ admin: true, items: ['Basic'], now: () => START });
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await admin('POST', '/reset');
  });

  it('provisions: 201 with the license, generating an activation code when none is given', async () => {
    const res = await admin('POST', '/main/licenses', { sub: 'alice', item: 'Pro' });
    expect(res.statusCode).toBe(201);
    const license = res.json();
    expect(license).toEqual({
      licenseId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      sub: 'alice',
      item: 'Pro',
      activationCode: expect.stringMatching(/^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/),
      provisionedAt: new Date(START).toISOString(),
    });
    const given = await provision({ sub: 'bob', item: 'Pro', activationCode: 'BOB-CODE-1' });
    expect(given.activationCode).toBe('BOB-CODE-1');
    const all = await admin('GET', '/main/licenses');
    expect(all.json()).toEqual([
      { ...license, live: true },
      { ...given, provisionedAt: expect.any(String), live: true },
    ]);
    const bobs = await admin('GET', '/main/licenses?sub=bob');
    expect(bobs.json().map((l: { sub: string }) => l.sub)).toEqual(['bob']);
  });

  it.each([
    ['no sub', { item: 'Pro' }],
    ['an empty sub', { sub: '', item: 'Pro' }],
    ['a number for the item', { sub: 'a', item: 5 }],
    ['null for the code', { sub: 'a', item: 'Pro', activationCode: null }],
    ['a code with a slash', { sub: 'a', item: 'Pro', activationCode: 'AB/CD' }],
    ['an unknown member', { sub: 'a', item: 'Pro', seats: 3 }],
    ['an item named like a claim', { sub: 'a', item: 'lic' }],
    ['an item named like a parameter', { sub: 'a', item: 'hw' }],
    ['an array', [{ sub: 'a', item: 'Pro' }]],
  ])('refuses a body with %s: 400 invalid_request, nothing stored', async (_what, body) => {
    const res = await admin('POST', '/main/licenses', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request' });
    expect((await admin('GET', '/main/licenses')).json()).toEqual([]);
    expect(app.licenseBook.outbox()).toEqual([]);
  });

  it('grants a licensed item from the license (lic = license id), the catalogue still from the catalogue', async () => {
    const license = await provision({ sub: 'alice', item: 'Pro' });
    const [pro, basic, other] = await authz('alice', 'Pro&Basic&Other');
    expect(pro).toMatchObject({ Pro: true, lic: license.licenseId });
    expect(basic).toMatchObject({ Basic: true });
    expect(basic!.lic).not.toBe(license.licenseId);
    expect(other).toMatchObject({ Other_errorCode: 'noLicenseFound' });
    // Another user holds no license for Pro.
    const [bobs] = await authz('bob', 'Pro');
    expect(bobs).toMatchObject({ Pro_errorCode: 'noLicenseFound' });
    // A licenseId names which license; one that is not the caller's grants nothing.
    const [named] = await authz('alice', `Pro=;licenseId=${license.licenseId}`);
    expect(named).toMatchObject({ Pro: true, lic: license.licenseId });
    const [wrong] = await authz('bob', `Pro=;licenseId=${license.licenseId}`);
    expect(wrong).toMatchObject({ Pro_errorCode: 'noLicenseFound' });
  });

  it('checkout honours licenses too', async () => {
    const license = await provision({ sub: 'carol', item: 'Pro' });
    const res = await app.inject({
      method: 'POST',
      url: '/main/licensing/actions/checkout',
      headers: as('carol'),
      payload: [
        { productName: 'Pro', qty: 1, qtyDimension: 'SEATS' },
        { productName: 'Max', qty: 1, qtyDimension: 'SEATS' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const [pro, max] = res.json();
    expect(pro).toMatchObject({ productName: 'Pro', granted: true });
    expect(decodeJwt(pro.jwt).payload).toMatchObject({ Pro: true, lic: license.licenseId });
    expect(max).toMatchObject({ granted: false, errorCode: 'noLicenseFound' });
  });

  it('a blocked code makes its license not live; unblocking makes it live again', async () => {
    const license = await provision({ sub: 'dave', item: 'Pro', activationCode: 'DAVE-1' });
    expect((await admin('POST', '/main/activation-codes/DAVE-1/block')).statusCode).toBe(204);
    expect((await admin('GET', '/main/activation-codes')).json()).toEqual([
      { activationCode: 'DAVE-1', blockedAt: new Date(START).toISOString() },
    ]);
    expect((await admin('GET', '/main/licenses?sub=dave')).json()[0].live).toBe(false);
    expect((await authz('dave', 'Pro'))[0]).toMatchObject({ Pro_errorCode: 'noLicenseFound' });
    // A blocked code provisions nothing.
    const refused = await admin('POST', '/main/licenses', {
      sub: 'eve',
      item: 'Pro',
      activationCode: 'DAVE-1',
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: 'activation_code_blocked' });
    expect((await admin('POST', '/main/activation-codes/DAVE-1/unblock')).statusCode).toBe(204);
    expect((await authz('dave', 'Pro'))[0]).toMatchObject({ Pro: true, lic: license.licenseId });
  });

  it('revokes: 204, then the item is denied; an unknown id is 404 not_found', async () => {
    const license = await provision({ sub: 'fay', item: 'Pro' });
    // A lease taken before the revocation: its renewal is denied after it.
    const [lease] = await authz('fay', 'Pro');
    expect((await admin('DELETE', `/main/licenses/${license.licenseId}`)).statusCode).toBe(204);
    const [renewal] = await authz('fay', `Pro=;leaseId=${lease!.jti}`);
    expect(renewal).toMatchObject({ Pro_errorCode: 'noLicenseFound' });
    const again = await admin('DELETE', `/main/licenses/${license.licenseId}`);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ error: 'not_found' });
  });

  it('refuses a code that provisioned a license already: 409', async () => {
    await provision({ sub: 'gus', item: 'Pro', activationCode: 'ONCE' });
    const res = await admin('POST', '/main/licenses', {
      sub: 'gus',
      item: 'Max',
      activationCode: 'ONCE',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'activation_code_used' });
  });

  it('writes exactly one event per change, in order, to the main feed and the object feeds', async () => {
    // Events of earlier tests stay in the feeds: compare what this test adds.
    const before = (await eventsOf(app, 'main')).length;
    const license = await provision({ sub: 'hal', item: 'Pro', activationCode: 'HAL-1' });
    await admin('POST', '/main/activation-codes/HAL-1/block');
    await admin('POST', '/main/activation-codes/HAL-1/block'); // no change, no event
    await admin('POST', '/main/activation-codes/HAL-1/unblock');
    await admin('POST', '/main/activation-codes/NEVER-BLOCKED/unblock'); // no change
    await admin('DELETE', `/main/licenses/${license.licenseId}`);

    const main = (await eventsOf(app, 'main')).slice(before);
    expect(main.map((e) => e.eventType)).toEqual([
      'LicenseProvisioned',
      'ActivationCodeBlocked',
      'ActivationCodeUnblocked',
      'LicenseRevoked',
    ]);
    const object = { eventObjectType: 'license', eventObjectId: license.licenseId };
    expect(main[0]).toMatchObject({
      eventSourceId: 'main',
      ...object,
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      data: {
        licensedItemName: 'Pro',
        activationCode: 'HAL-1',
        licenseId: license.licenseId,
        userId: 'hal',
      },
    });
    expect(main[1]).toMatchObject({
      eventObjectType: 'activationCode',
      eventObjectId: 'HAL-1',
      data: { activationCode: 'HAL-1' },
    });
    expect(main[3]).toMatchObject({
      ...object,
      data: { licensedItemName: 'Pro', licenseId: license.licenseId, userId: 'hal' },
    });
    expect(main[3]!.data).not.toHaveProperty('activationCode');
    const own = await eventsOf(app, `license/${license.licenseId}`);
    expect(own.map((e) => e.eventId)).toEqual([main[0]!.eventId, main[3]!.eventId]);
    const code = await eventsOf(app, 'activationCode/HAL-1');
    expect(code.map((e) => e.eventType)).toEqual([
      'ActivationCodeBlocked',
      'ActivationCodeUnblocked',
    ]);
    expect(app.licenseBook.outbox()).toEqual([]);
  });

  it('a read token needs the claim main, license/<id> or *', async () => {
    const license = await provision({ sub: 'ida', item: 'Pro' });
    await app.mainOutbox.idle();
    const feed = `license/${license.licenseId}`;
    const other = await mintReadToken(app, { 'license/another': true });
    expect((await getFeed(app, feed, other)).status).toBe(403);
    for (const claim of ['main', feed, '*']) {
      const token = await mintReadToken(app, { [claim]: true });
      const res = await getFeed(app, claim === 'main' ? 'main' : feed, token);
      expect(res.status).toBe(200);
    }
  });

  it('holds events while deliveries are paused and writes them once let go', async () => {
    const before = (await eventsOf(app, 'main')).length;
    const held = await admin('PUT', '/main/outbox', { paused: true });
    expect(held.json()).toMatchObject({ paused: true, pending: 0 });
    const license = await provision({ sub: 'jo', item: 'Pro' });
    await admin('DELETE', `/main/licenses/${license.licenseId}`);
    const view = (await admin('GET', '/main/outbox')).json();
    expect(view).toMatchObject({ paused: true, pending: 2 });
    expect(view.entries.flatMap((e: { events: { eventType: string }[] }) => e.events)).toEqual([
      expect.objectContaining({ eventType: 'LicenseProvisioned' }),
      expect.objectContaining({ eventType: 'LicenseRevoked' }),
    ]);
    expect((await eventsOf(app, 'main')).length).toBe(before);
    expect((await admin('PUT', '/main/outbox', { paused: false })).json().paused).toBe(false);
    const main = (await eventsOf(app, 'main')).slice(before);
    expect(main.map((e) => e.eventType)).toEqual(['LicenseProvisioned', 'LicenseRevoked']);
    expect((await admin('GET', '/main/outbox')).json().pending).toBe(0);
    expect((await admin('PUT', '/main/outbox', { paused: 'no' })).statusCode).toBe(400);
  });

  it('reset forgets licenses and blocks (no events), and keeps faults apart', async () => {
    await provision({ sub: 'kim', item: 'Pro' });
    await admin('POST', '/main/activation-codes/SOME-CODE/block');
    const before = (await eventsOf(app, 'main')).length;
    expect((await admin('POST', '/reset?service=main')).json()).toEqual({ reset: ['main'] });
    expect((await admin('GET', '/main/licenses')).json()).toEqual([]);
    expect((await admin('GET', '/main/activation-codes')).json()).toEqual([]);
    expect((await eventsOf(app, 'main')).length).toBe(before);
  });
});

describe('audit events (mainAuditEvents)', () => {
  it('adds Created, Updated and Deleted with modifiedFields, oldFields and userId, nulls omitted', async () => {
    const app = await buildApp({ admin: true, mainAuditEvents: true, now: () => START });
    try {
      const created = await app.inject({
        method: 'POST',
        url: '/admin/main/licenses',
        payload: { sub: 'lee', item: 'Pro', activationCode: 'LEE-1' },
      });
      const license = created.json();
      await app.inject({ method: 'POST', url: '/admin/main/activation-codes/LEE-1/block' });
      await app.inject({ method: 'POST', url: '/admin/main/activation-codes/LEE-1/unblock' });
      await app.inject({ method: 'DELETE', url: `/admin/main/licenses/${license.licenseId}` });
      const events = await eventsOf(app, 'main');
      expect(events.map((e) => e.eventType)).toEqual([
        'LicenseProvisioned',
        'Created',
        'ActivationCodeBlocked',
        'Updated',
        'ActivationCodeUnblocked',
        'Updated',
        'LicenseRevoked',
        'Deleted',
      ]);
      const at = new Date(START).toISOString();
      const fields = {
        id: license.licenseId,
        userId: 'lee',
        licensedItemName: 'Pro',
        activationCode: 'LEE-1',
        provisionedAt: at,
      };
      expect(events[1]).toMatchObject({
        eventObjectType: 'license',
        eventObjectId: license.licenseId,
        data: { modifiedFields: fields, oldFields: {}, userId: 'lee' },
      });
      // blockedAt is null on one side of each change: omitted there.
      expect(events[3]!.data).toEqual({
        modifiedFields: { blockedAt: at },
        oldFields: {},
        userId: 'lee',
      });
      expect(events[5]!.data).toEqual({
        modifiedFields: {},
        oldFields: { blockedAt: at },
        userId: 'lee',
      });
      expect(events[7]!.data).toEqual({ modifiedFields: {}, oldFields: fields, userId: 'lee' });
    } finally {
      await app.close();
    }
  });
});

describe('limits and admin off', () => {
  it('refuses more licenses than maxLicenses (409) and more waiting changes (503)', async () => {
    const app = await buildApp({ admin: true, limits: { maxLicenses: 2 } });
    try {
      const post = (sub: string) =>
        app.inject({ method: 'POST', url: '/admin/main/licenses', payload: { sub, item: 'X' } });
      expect((await post('a')).statusCode).toBe(201);
      expect((await post('b')).statusCode).toBe(201);
      const third = await post('c');
      expect(third.statusCode).toBe(409);
      expect(third.json()).toMatchObject({ error: 'too_many_licenses' });
      await app.mainOutbox.idle();
      app.mainOutbox.setPaused(true);
      await app.inject({ method: 'POST', url: '/admin/main/activation-codes/C1/block' });
      await app.inject({ method: 'POST', url: '/admin/main/activation-codes/C2/block' });
      const full = await app.inject({
        method: 'POST',
        url: '/admin/main/activation-codes/C3/block',
      });
      expect(full.statusCode).toBe(503);
      expect(full.json()).toMatchObject({ error: 'outbox_full' });
      expect(full.headers['retry-after']).toBe('5');
      expect(app.licenseBook.blockedCodes().map((b) => b.activationCode)).toEqual(['C1', 'C2']);
    } finally {
      await app.close();
    }
  });

  it('serves no provisioning routes without admin', async () => {
    const app = await buildApp();
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/admin/main/licenses',
        payload: { sub: 'a', item: 'X' },
      });
      expect(res.statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});
