import { createHmac, createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWriterKey,
  getFeed,
  mintReadToken,
  putJson,
  signEvents,
  timestampsOf,
} from '../../test/helpers/events.js';
import { buildApp } from '../app.js';
import { signCompactJws } from '../crypto/jws.js';
import { parsePublicKeys } from '../crypto/public-keys.js';
import { getEventsInternals } from './index.js';

type App = Awaited<ReturnType<typeof buildApp>>;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const ev = (extra: Record<string, unknown> = {}) => ({
  eventType: 'Ping',
  eventSourceId: 'src',
  ...extra,
});

describe('events service', () => {
  let app: App;
  let token: string;
  let writer: { privateKey: KeyObject; publicPem: string };
  let stranger: { privateKey: KeyObject; publicPem: string };
  let reader: { privateKey: KeyObject; publicPem: string };

  const putJws = (target: App, body: string, type = 'application/jose') =>
    target.inject({
      method: 'POST',
      url: '/events/put',
      headers: { 'content-type': type },
      payload: body,
    });
  const size = () => getEventsInternals(app)!.store.size;
  const issuerToken = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    signCompactJws(
      { alg: 'RS256', kid: app.keyring.issuer.kid, ...header },
      claims,
      app.keyring.issuer.privateKey,
    );
  const exp = () => Math.floor(Date.now() / 1000) + 600;

  beforeAll(async () => {
    writer = createWriterKey();
    stranger = createWriterKey();
    reader = createWriterKey();
    app = await buildApp({ eventWriterKeys: [writer.publicPem] });
    token = await mintReadToken(app);
  });
  afterAll(() => app.close());

  // One app (each build generates RSA keys); cases that need other trust settings swap the
  // resolved config, which the routes read per request, and restore it.
  async function withConfig(patch: Partial<App['config']>, run: () => Promise<void>) {
    const saved = { ...app.config };
    Object.assign(app.config, patch);
    try {
      await run();
    } finally {
      Object.assign(app.config, saved);
    }
  }

  describe('POST /events/put', () => {
    it('stores a signed event, generating its eventId, and answers 201 with an empty body', async () => {
      const res = await putJws(
        app,
        signEvents(ev({ eventSourceId: 'w1', data: { n: 1 } }), writer.privateKey),
      );
      expect(res.statusCode).toBe(201);
      expect(res.body).toBe('');
      const feed = await getFeed(app, 'w1', token);
      expect(feed.body.count).toBe(1);
      const event = feed.body.objects[1]!;
      expect(event).toMatchObject({ eventType: 'Ping', eventSourceId: 'w1', data: { n: 1 } });
      expect(event.eventId).toMatch(/^[0-9a-f-]{36}$/);
      expect(String(event.eventReceived_str)).toMatch(/^\d{19}$/);
    });

    it('stores a batch signed with RS384 or RS512 in order, in source and object feeds', async () => {
      for (const alg of ['RS384', 'RS512']) {
        const batch = [1, 2, 3].map((n) =>
          ev({ eventSourceId: `b-${alg}`, eventObjectType: 'device', eventObjectId: alg, n }),
        );
        const res = await putJws(app, signEvents(batch, writer.privateKey, { alg }));
        expect(res.statusCode).toBe(201);
        const bySource = await getFeed(app, `b-${alg}`, token);
        const byObject = await getFeed(app, `device/${alg}`, token);
        expect(bySource.body.objects.slice(1, -1).map((e) => e.n)).toEqual([1, 2, 3]);
        expect(byObject.body.objects.slice(1, -1)).toEqual(bySource.body.objects.slice(1, -1));
      }
    });

    it('keeps a given eventId and picks the writer key by kid', async () => {
      const jwks = JSON.stringify({
        keys: [
          { ...stranger.privateKey.export({ format: 'jwk' }), kid: 'other' },
          { ...writer.privateKey.export({ format: 'jwk' }), kid: 'w' },
        ].map(({ kty, n, e, kid }) => ({ kty, n, e, kid })),
      });
      await withConfig({ eventWriterKeys: parsePublicKeys(jwks) }, async () => {
        const eventId = '0f8fad5b-d9cb-469f-a165-70867728950e';
        const ok = await putJws(
          app,
          signEvents(ev({ eventSourceId: 'kid', eventId }), writer.privateKey, {
            alg: 'RS256',
            kid: 'w',
          }),
        );
        expect(ok.statusCode).toBe(201);
        const wrongKid = await putJws(
          app,
          signEvents(ev({ eventSourceId: 'kid' }), writer.privateKey, {
            alg: 'RS256',
            kid: 'other',
          }),
        );
        expect(wrongKid.statusCode).toBe(401);
        expect(wrongKid.json()).toMatchObject({ error: 'invalid_signature' });
        const feed = await getFeed(app, 'kid', token);
        expect(feed.body.objects[1]!.eventId).toBe(eventId);
        expect(feed.body.count).toBe(1);
      });
    });

    it('refuses a JWS signed by an untrusted key with 401 invalid_signature', async () => {
      const before = size();
      const res = await putJws(app, signEvents(ev(), stranger.privateKey));
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: 'invalid_signature' });
      expect(size()).toBe(before);
    });

    it('refuses alg none, HS256 and ES256 with 400 invalid_request', async () => {
      const payload = b64(ev());
      const none = `${b64({ alg: 'none' })}.${payload}.`;
      const hsInput = `${b64({ alg: 'HS256' })}.${payload}`;
      const hs = `${hsInput}.${createHmac('sha256', writer.publicPem).update(hsInput).digest('base64url')}`;
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const esInput = `${b64({ alg: 'ES256' })}.${payload}`;
      const es = `${esInput}.${createSign('sha256')
        .update(esInput)
        .sign({ key: ec.privateKey, dsaEncoding: 'ieee-p1363' }, 'base64url')}`;
      const before = size();
      for (const jws of [none, hs, es]) {
        const res = await putJws(app, jws);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_request' });
      }
      expect(size()).toBe(before);
    });

    it('refuses malformed JWS, bad JSON and non-object payloads with 400 invalid_request', async () => {
      const before = size();
      const bodies = [
        'not-a-jws',
        'a.b',
        `${b64({ alg: 'RS256' })}.${b64(ev())}`,
        `%%%.${b64(ev())}.sig`,
        signCompactJws({ alg: 'RS256' }, 'x', writer.privateKey).replace(
          /\.[^.]+\./,
          `.${Buffer.from('{oops').toString('base64url')}.`,
        ),
      ];
      for (const body of bodies) {
        const res = await putJws(app, body);
        expect(res.statusCode, body).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, body).toBeLessThan(500);
        expect(res.json().error).toMatch(/^invalid_(request|signature)$/);
      }
      for (const body of ['{"eventType":', '42', '"text"', 'null', '[]', '[1]', '[{}]']) {
        const res = await putJws(app, body, 'application/json');
        expect(res.statusCode, body).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_request' });
      }
      expect(size()).toBe(before);
    });

    it('validates every event and stores nothing of a batch with one bad event', async () => {
      const bad = [
        ev({ eventSourceId: 'a/b' }),
        ev({ eventObjectType: 'dev/ice', eventObjectId: '1' }),
        ev({ eventObjectType: 'device', eventObjectId: '1/2' }),
        ev({ eventObjectType: 'device' }),
        ev({ eventObjectId: '1' }),
        ev({ eventReceived: 1 }),
        ev({ eventReceived_str: '1' }),
        ev({ eventId: 'not-a-uuid' }),
        ev({ eventType: 'instruction' }),
        { eventSourceId: 'src' },
        { eventType: 'Ping' },
        ev({ eventSourceId: 7 }),
      ];
      const before = size();
      for (const event of bad) {
        const res = await putJws(app, signEvents([ev(), event], writer.privateKey));
        expect(res.statusCode, JSON.stringify(event)).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_request' });
        expect(await putJson(app, event)).toBe(400);
      }
      expect(size()).toBe(before);
    });

    it('answers 415 for other content types and for JSON when signatures are required', async () => {
      const res = await putJws(app, JSON.stringify(ev()), 'text/plain');
      expect(res.statusCode).toBe(415);
      expect(res.json()).toMatchObject({ error: 'unsupported_media_type' });
      await withConfig({ requireSignedEvents: true }, async () => {
        const before = size();
        const legacy = await putJws(app, JSON.stringify(ev()), 'application/json');
        expect(legacy.statusCode).toBe(415);
        expect(legacy.json()).toMatchObject({ error: 'unsupported_media_type' });
        expect(size()).toBe(before);
        const signed = await putJws(app, signEvents(ev(), writer.privateKey));
        expect(signed.statusCode).toBe(201);
      });
    });

    it('answers 413 request_too_large for bodies over 1 MiB', async () => {
      const before = size();
      const big = ev({ data: 'x'.repeat(1024 * 1024) });
      const json = await putJws(app, JSON.stringify(big), 'application/json');
      expect(json.statusCode).toBe(413);
      expect(json.json()).toMatchObject({ error: 'request_too_large' });
      const jws = await putJws(app, signEvents(big, writer.privateKey));
      expect(jws.statusCode).toBe(413);
      expect(size()).toBe(before);
    });
  });

  describe('GET /events/get', () => {
    it('needs a Bearer JWT: 401 unauthorized without, 401 invalid_token when bad', async () => {
      const none = await app.inject({ url: '/events/get/src' });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toMatchObject({ error: 'unauthorized' });
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      const badTokens = [
        'Basic abc',
        'Bearer not.a.jwt',
        `Bearer ${signCompactJws({ alg: 'RS256' }, { '*': true, exp: exp() }, stranger.privateKey)}`,
        `Bearer ${issuerToken({ '*': true })}`,
        `Bearer ${issuerToken({ '*': true, exp: Math.floor(Date.now() / 1000) - 10 })}`,
        `Bearer ${issuerToken({ '*': true, exp: exp(), nbf: exp() })}`,
        `Bearer ${b64({ alg: 'none' })}.${b64({ '*': true, exp: exp() })}.`,
      ];
      for (const authorization of badTokens) {
        const res = await app.inject({ url: '/events/get/src', headers: { authorization } });
        expect(res.statusCode, authorization).toBe(401);
        expect(res.json()).toMatchObject({ error: 'invalid_token' });
      }
    });

    it('needs a claim for the feed or "*": 403 forbidden otherwise', async () => {
      const read = (url: string, claims: Record<string, unknown>) =>
        app.inject({
          url: `/events/get/${url}`,
          headers: { authorization: `Bearer ${issuerToken({ ...claims, exp: exp() })}` },
        });
      expect((await read('src', { src: true })).statusCode).toBe(200);
      expect((await read('device/RS384', { 'device/RS384': true })).statusCode).toBe(200);
      const denied = await read('src', { other: true, src: 'yes' });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toMatchObject({ error: 'forbidden' });
      expect((await read('device/RS384', { device: true })).statusCode).toBe(403);
    });

    it('trusts the configured reader keys instead of the built-in issuer', async () => {
      const own = signCompactJws({ alg: 'RS512' }, { '*': true, exp: exp() }, reader.privateKey);
      await withConfig({ eventReaderKeys: parsePublicKeys(reader.publicPem) }, async () => {
        const ok = await app.inject({
          url: '/events/get/src',
          headers: { authorization: `Bearer ${own}` },
        });
        expect(ok.statusCode).toBe(200);
        const issued = await app.inject({
          url: '/events/get/src',
          headers: { authorization: `Bearer ${token}` },
        });
        expect(issued.statusCode).toBe(401);
      });
    });

    it('answers 400 invalid_request for non-numeric or negative parameters and slashes', async () => {
      const urls = [
        'src?after=abc',
        'src?before=-5',
        'src?after=1.5',
        'src?maxEventCount=-1',
        'src?maxEventCount=ten',
        'src?minWaitMs=-1',
        'src?maxWaitMs=1e3',
        'src?newest=maybe',
        'src?after=1&after=2',
        'a%2Fb',
        'device/a%2Fb',
      ];
      for (const url of urls) {
        const res = await app.inject({
          url: `/events/get/${url}`,
          headers: { authorization: `Bearer ${token}` },
        });
        expect(res.statusCode, url).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_request' });
      }
    });

    it('reads back every id it accepts: 512 characters on write and read, 513 refused on both', async () => {
      // Emoji are two UTF-16 units each: the limit counts characters (code points).
      const ids = {
        source: 'S'.repeat(512),
        type: '\u{1F600}'.repeat(512),
        object: 'é'.repeat(512),
      };
      const event = ev({
        eventSourceId: ids.source,
        eventObjectType: ids.type,
        eventObjectId: ids.object,
      });
      expect(await putJson(app, event)).toBe(201);
      const bySource = await getFeed(app, encodeURIComponent(ids.source), token);
      expect(bySource.status).toBe(200);
      expect(bySource.body.count).toBe(1);
      const byObject = await getFeed(
        app,
        `${encodeURIComponent(ids.type)}/${encodeURIComponent(ids.object)}`,
        token,
      );
      expect(byObject.status).toBe(200);
      expect(byObject.body.count).toBe(1);

      for (const field of ['eventSourceId', 'eventObjectType', 'eventObjectId']) {
        const long = { ...event, [field]: 'L'.repeat(513) };
        const res = await app.inject({
          method: 'POST',
          url: '/events/put',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify(long),
        });
        expect(res.statusCode, field).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_request' });
      }
      for (const path of [
        'L'.repeat(513),
        `t/${'L'.repeat(513)}`,
        `${'\u{1F600}'.repeat(513)}/o`,
        'L'.repeat(10_000),
      ]) {
        const res = await app.inject({
          url: `/events/get/${path.split('/').map(encodeURIComponent).join('/')}`,
          headers: { authorization: `Bearer ${token}` },
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_request' });
      }
    });

    it('renders the feed body with exact instruction counts and relative urls', async () => {
      const batch = Array.from({ length: 5 }, (_, n) => ev({ eventSourceId: 'shape', n }));
      expect(await putJson(app, batch)).toBe(201);
      const all = await getFeed(app, 'shape', token);
      const ts = timestampsOf(all.body);
      expect(ts).toHaveLength(5);
      const page = await getFeed(app, 'shape?maxEventCount=2', token);
      expect(page.body).toEqual({
        uri: 'shape?maxEventCount=2',
        updateUrl: `shape?after=${ts[4]}`,
        count: 2,
        objects: [
          {
            eventType: 'instruction',
            instruction: 'older',
            url: `shape?before=${ts[3]}`,
            count: 3,
          },
          expect.objectContaining({ n: 3, eventReceived_str: ts[3] }),
          expect.objectContaining({ n: 4, eventReceived_str: ts[4] }),
          { eventType: 'instruction', instruction: 'newer', url: `shape?after=${ts[4]}`, count: 0 },
        ],
      });
      const oldest = await getFeed(app, `shape?after=${ts[0]}&maxEventCount=2`, token);
      expect(timestampsOf(oldest.body)).toEqual([ts[1], ts[2]]);
      expect(oldest.body.objects[0]).toMatchObject({ url: `shape?before=${ts[1]}`, count: 1 });
      expect(oldest.body.objects[3]).toMatchObject({ url: `shape?after=${ts[2]}`, count: 2 });
      const newest = await getFeed(app, `shape?after=${ts[0]}&maxEventCount=2&newest=true`, token);
      expect(timestampsOf(newest.body)).toEqual([ts[3], ts[4]]);
      const range = await getFeed(app, `shape?after=${ts[0]}&before=${ts[4]}&newest=false`, token);
      expect(timestampsOf(range.body)).toEqual([ts[1], ts[2], ts[3]]);

      // An empty page keeps the request's own bounds, which are exact for an empty range.
      const empty = await getFeed(app, `shape?after=${ts[4]}`, token);
      expect(empty.body.count).toBe(0);
      expect(empty.body.objects).toEqual([
        expect.objectContaining({ instruction: 'older', count: 5 }),
        { eventType: 'instruction', instruction: 'newer', url: `shape?after=${ts[4]}`, count: 0 },
      ]);
      const gap = await getFeed(app, `shape?after=${ts[1]}&before=${ts[2]}`, token);
      expect(gap.body.objects).toEqual([
        { eventType: 'instruction', instruction: 'older', url: `shape?before=${ts[2]}`, count: 2 },
        { eventType: 'instruction', instruction: 'newer', url: `shape?after=${ts[1]}`, count: 3 },
      ]);
      const unknown = await getFeed(app, 'no-such-feed', token);
      expect(unknown.status).toBe(200);
      expect(unknown.body.count).toBe(0);
      expect(unknown.body.objects).toHaveLength(2);
    });

    it('encodes feed names in urls and reads object feeds', async () => {
      const event = ev({ eventSourceId: 'a b', eventObjectType: 'de vice', eventObjectId: 'é' });
      expect(await putJson(app, event)).toBe(201);
      const feed = await getFeed(app, 'de%20vice/%C3%A9', token);
      expect(feed.body.count).toBe(1);
      expect(feed.body.updateUrl).toMatch(/^de%20vice\/%C3%A9\?after=\d+$/);
      const bySource = await getFeed(app, 'a%20b', token);
      expect(bySource.body.updateUrl).toMatch(/^a%20b\?after=\d+$/);
    });

    it('caps maxEventCount at 10 000 and defaults to 1000', async () => {
      const batch = Array.from({ length: 1001 }, () => ev({ eventSourceId: 'many' }));
      expect(await putJson(app, batch)).toBe(201);
      expect((await getFeed(app, 'many', token)).body.count).toBe(1000);
      expect((await getFeed(app, 'many?maxEventCount=99999999999', token)).body.count).toBe(1001);
    });
  });

  it('describes its routes in the OpenAPI document', () => {
    const doc = app.swagger() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/events/put',
        '/events/get/{eventSourceId}',
        '/events/get/{eventObjectType}/{eventObjectId}',
      ]),
    );
    expect(doc.paths['/events/get/{eventSourceId}']!.get).toMatchObject({
      responses: { 200: expect.anything(), 401: expect.anything(), 403: expect.anything() },
    });
  });

  // Last: it clears the shared app.
  it('clears every event through the events reset hook', async () => {
    expect(await putJson(app, ev({ eventSourceId: 'gone' }))).toBe(201);
    const last = getEventsInternals(app)!.store.lastTimestamp;
    await app.resets.get('events')!();
    expect(size()).toBe(0);
    expect((await getFeed(app, 'gone', token)).body.count).toBe(0);
    expect(await putJson(app, ev({ eventSourceId: 'gone' }))).toBe(201);
    const [ts] = timestampsOf((await getFeed(app, 'gone', token)).body);
    expect(BigInt(ts!)).toBeGreaterThan(last);
  });
});
