import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from '@test/helpers/mock-server/decode-jwt.js';
import { signTestIdToken } from '@test/helpers/mock-server/id-tokens.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { computeServiceKeyHash } from '../auth/service-key-hash.js';

const START = Date.UTC(2031, 2, 3, 9, 0, 0);
const CALLER_FIELDS = ['authorization', 'idTokenGraceSeconds'];
const LEASE_FIELDS = ['leaseId', 'licenseId', 'licensedItemName', 'iat', 'exp'];

type Event = {
  eventType: string;
  eventSourceId: string;
  eventObjectType: string;
  eventObjectId: string;
  eventId: string;
  data: Record<string, unknown>;
};

/** Every event of a feed in the app's event store, parsed. */
function feed(app: FastifyInstance, name: string): Event[] {
  const index = app.eventStore.feed(name);
  if (!index) return [];
  return index.slice(0, index.size).map((stored) => JSON.parse(stored.text) as Event);
}

describe('standby lease events', () => {
  let app: FastifyInstance;
  let now = START;
  let idToken: string;

  const authz = async (query: string, authorization = `IdToken ${idToken}`) => {
    const res = await app.inject({
      url: `/standby/authz/.jwt?${query}`,
      headers: { authorization },
    });
    await app.standbyOutboxDelivery.idle();
    return res;
  };
  const claimsOf = (body: string) => body.split('&').map((token) => decodeJwt(token).payload);

  beforeAll(async () => {
    app = await buildApp({ state: 'active', admin: true, now: () => now });
    idToken = signTestIdToken(app, { claims: { sub: 'ann', email: 'ann@example.test' } });
  });
  afterAll(() => app.close());
  afterEach(async () => {
    now = START;
    app.standbyOutboxDelivery.setPaused(false);
    await app.eventStore.clear();
  });

  it('writes one StandbyLeaseGranted per item, with the fields DECISIONS names, to standby and consumer/<sub>', async () => {
    const res = await authz('ItemA&ItemB&hw=dev-1;name=Ann%27s%20laptop&process=cad&version=2.1');
    expect(res.statusCode).toBe(200);
    const tokens = claimsOf(res.body);
    const events = feed(app, 'standby');
    expect(events.map((e) => e.eventType)).toEqual(['StandbyLeaseGranted', 'StandbyLeaseGranted']);
    expect(feed(app, 'consumer/ann')).toEqual(events);
    events.forEach((event, i) => {
      const token = tokens[i]!;
      expect(event).toMatchObject({
        eventSourceId: 'standby',
        eventObjectType: 'consumer',
        eventObjectId: 'ann',
      });
      expect(event.data).toEqual({
        leaseId: token.jti,
        licenseId: token.lic,
        licensedItemName: i === 0 ? 'ItemA' : 'ItemB',
        iat: token.iat,
        exp: token.exp,
        hw: 'dev-1',
        hwName: "Ann's laptop",
        process: 'cad',
        version: '2.1',
        email: 'ann@example.test',
        authorization: 'IdToken',
        idTokenGraceSeconds: 0,
      });
    });
  });

  it('writes StandbyLeaseRenewed for a renewal and StandbyLeaseReleased with the released lease', async () => {
    const [granted] = claimsOf((await authz('ItemA')).body);
    now += 60_000;
    const [renewed] = claimsOf((await authz(`ItemA=;leaseId=${granted!.jti}`)).body);
    now += 60_000;
    expect((await authz(`release&${granted!.jti}&unknown-lease`)).statusCode).toBe(200);
    const [grant, renewal, release, unknown] = feed(app, 'consumer/ann');
    expect([grant, renewal, release, unknown].map((e) => e!.eventType)).toEqual([
      'StandbyLeaseGranted',
      'StandbyLeaseRenewed',
      'StandbyLeaseReleased',
      'StandbyLeaseReleased',
    ]);
    expect(renewal!.data).toMatchObject({ leaseId: granted!.jti, iat: renewed!.iat });
    // The release names the lease as it was last renewed.
    expect(release!.data).toMatchObject({
      leaseId: granted!.jti,
      licenseId: renewed!.lic,
      licensedItemName: 'ItemA',
      iat: renewed!.iat,
      exp: renewed!.exp,
    });
    // A lease the standby never granted: only what the request says.
    expect(Object.keys(unknown!.data).sort()).toEqual(
      ['leaseId', 'email', ...CALLER_FIELDS].sort(),
    );
    expect(new Set(feed(app, 'standby').map((e) => e.eventId)).size).toBe(4);
  });

  it('names a ServiceKeyHash caller service-key-<16 hex>', async () => {
    const hash = computeServiceKeyHash((await app.keyring.get('main')).publicKey);
    const res = await authz('ItemA', `ServiceKeyHash ${hash.toUpperCase()}`);
    expect(res.statusCode).toBe(200);
    const [event] = feed(app, 'standby');
    expect(event!.eventObjectId).toBe(`service-key-${hash.slice(0, 16)}`);
    expect(event!.data.authorization).toBe('ServiceKeyHash');
    expect(event!.data.idTokenGraceSeconds).toBe(0);
    expect(Object.keys(event!.data).sort()).toEqual([...LEASE_FIELDS, ...CALLER_FIELDS].sort());
  });

  it('says how deep in the ID-token grace a grant came', async () => {
    const expired = signTestIdToken(app, { claims: { sub: 'bo', exp: START / 1000 - 7200 } });
    expect((await authz('ItemA', `IdToken ${expired}`)).statusCode).toBe(200);
    const [event] = feed(app, 'consumer/bo');
    expect(event!.data.idTokenGraceSeconds).toBe(7200);
  });

  it('writes a sub that holds / with %2F (no object id may hold /)', async () => {
    const token = signTestIdToken(app, { claims: { sub: 'org/team%1' } });
    expect((await authz('ItemA', `IdToken ${token}`)).statusCode).toBe(200);
    expect(feed(app, 'consumer/org%2Fteam%251')).toHaveLength(1);
  });

  it('writes nothing for a refused request', async () => {
    expect((await authz('')).statusCode).toBe(400);
    expect((await authz('ItemA', 'IdToken nonsense')).statusCode).toBe(401);
    expect(feed(app, 'standby')).toEqual([]);
  });

  it('summarises what it granted at GET /admin/standby/usage, in a window', async () => {
    const [lease] = claimsOf((await authz('ItemA&hw=d1')).body);
    now += 3_600_000;
    await authz(`ItemA=;leaseId=${lease!.jti}&hw=d1`);
    await authz('ItemB&hw=d2');
    const all = await app.inject({ url: '/admin/standby/usage' });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({ events: 3, waiting: 0 });
    expect(all.json().rows).toEqual([
      {
        consumer: 'ann',
        item: 'ItemA',
        granted: 1,
        renewed: 1,
        released: 0,
        firstGrant: new Date(START).toISOString(),
        lastExp: new Date(START + 3_600_000 + 8 * 3_600_000).toISOString(),
        leaseHours: 9,
        devices: 1,
        graceGrants: 0,
      },
      expect.objectContaining({ consumer: 'ann', item: 'ItemB', granted: 1, devices: 1 }),
    ]);
    // The window is on eventReceived: the server clock, here an hour on for the last two.
    const later = await app.inject({
      url: `/admin/standby/usage?from=${new Date(START + 1_800_000).toISOString()}`,
    });
    expect(later.json().events).toBe(2);
    const bad = await app.inject({ url: '/admin/standby/usage?from=2031-13-45T99:00Z' });
    expect(bad.statusCode).toBe(400);
  });

  it('keeps events in the outbox while held, and delivers them in order once let go', async () => {
    app.standbyOutboxDelivery.setPaused(true);
    await authz('ItemA');
    await authz('ItemB');
    expect(feed(app, 'standby')).toEqual([]);
    expect(app.standbyOutbox.pendingEvents).toBe(2);
    const view = await app.inject({ url: '/admin/standby/outbox' });
    expect(view.json()).toMatchObject({ paused: true, pending: 2, pendingEvents: 2 });
    const resumed = await app.inject({
      method: 'PUT',
      url: '/admin/standby/outbox',
      payload: { paused: false },
    });
    expect(resumed.json()).toMatchObject({ paused: false });
    await app.standbyOutboxDelivery.idle();
    expect(feed(app, 'standby').map((e) => e.data.licensedItemName)).toEqual(['ItemA', 'ItemB']);
    expect(app.standbyOutbox.pendingEvents).toBe(0);
  });
});

describe('standby lease events with a full outbox', () => {
  it('refuses the lease with 503 outbox_full and grants nothing', async () => {
    const app = await buildApp({ state: 'active', limits: { maxStandbyOutbox: 1 } });
    try {
      const authorization = `IdToken ${signTestIdToken(app)}`;
      app.standbyOutboxDelivery.setPaused(true);
      const call = () =>
        app.inject({ url: '/standby/authz/.jwt?ItemA', headers: { authorization } });
      expect((await call()).statusCode).toBe(200);
      const refused = await call();
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({ error: 'outbox_full' });
      expect(refused.headers['retry-after']).toBe('5');
      app.standbyOutboxDelivery.setPaused(false);
      await app.standbyOutboxDelivery.idle();
      expect(feed(app, 'standby')).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

describe('standby lease events across a restart (--data-dir)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'standby-events-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('delivers what the outbox held at the next start, once', async () => {
    let app = await buildApp({ dataDir, state: 'active' });
    const authorization = `IdToken ${signTestIdToken(app)}`;
    app.standbyOutboxDelivery.setPaused(true);
    for (const item of ['ItemA', 'ItemB', 'ItemC']) {
      const res = await app.inject({
        url: `/standby/authz/.jwt?${item}`,
        headers: { authorization },
      });
      expect(res.statusCode).toBe(200);
    }
    await app.close();
    app = await buildApp({ dataDir, state: 'active' });
    await app.standbyOutboxDelivery.idle();
    expect(feed(app, 'standby').map((e) => e.data.licensedItemName)).toEqual([
      'ItemA',
      'ItemB',
      'ItemC',
    ]);
    await app.close();
    app = await buildApp({ dataDir, state: 'active' });
    await app.standbyOutboxDelivery.idle();
    expect(feed(app, 'standby')).toHaveLength(3);
    expect(app.standbyOutbox.outbox()).toEqual([]);
    await app.close();
  });
});
