import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriterKey, signEvents } from '../../test/helpers/events.js';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { buildApp } from '../app.js';
import { measureJsonDepth } from './json-depth.js';

/** Depth of a parsed value, the obvious recursive way (for values shallow enough to recurse). */
function referenceDepth(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(referenceDepth));
  if (typeof value === 'object' && value !== null) {
    return 1 + Math.max(0, ...Object.values(value).map(referenceDepth));
  }
  return 0;
}

/** `{"d": {"d": ... 1 ...}}` with `levels` objects. */
const nested = (levels: number) => `${'{"d":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('measureJsonDepth', () => {
  it('agrees with a recursive count on any JSON, brackets inside strings included', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(measureJsonDepth(JSON.stringify(value))).toBe(referenceDepth(value));
      }),
      { numRuns: 300 },
    );
    expect(measureJsonDepth('{"a":"[[[{\\"}","b":["]"]}')).toBe(2);
  });

  it('measures a million levels without recursion, and stops early when told', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    expect(measureJsonDepth(deep)).toBe(1_000_000);
    expect(measureJsonDepth(deep, 65)).toBe(66);
  });
});

describe('JSON nesting limit over HTTP (64 levels by default)', () => {
  let app: Awaited<ReturnType<typeof buildApp>>;
  const writer = createWriterKey();

  beforeAll(async () => {
    app = await buildApp({ admin: true, eventWriterKeys: [writer.publicPem] });
  });
  afterAll(() => app.close());

  const putJson = (payload: string) =>
    app.inject({
      method: 'POST',
      url: '/events/put',
      headers: { 'content-type': 'application/json' },
      payload,
    });
  const event = (data: string) => `{"eventType":"Deep","eventSourceId":"deep","data":${data}}`;

  it('stores an event field 64 deep, refuses 65 and 4 500, as JSON, batch or JWS', async () => {
    expect((await putJson(event(nested(64)))).statusCode).toBe(201);
    expect((await putJson(`[${event(nested(64))}]`)).statusCode).toBe(201);
    for (const body of [
      event(nested(65)),
      `[${event(nested(65))}]`,
      event(`${'['.repeat(4500)}${']'.repeat(4500)}`),
      `[${'['.repeat(100_000)}${']'.repeat(100_000)}]`,
    ]) {
      const res = await putJson(body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request' });
    }
    const deepJws = signEvents(JSON.parse(event(nested(65))), writer.privateKey);
    const jws = await app.inject({
      method: 'POST',
      url: '/events/put',
      headers: { 'content-type': 'application/jose' },
      payload: deepJws,
    });
    expect(jws.statusCode).toBe(400);
    expect(jws.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses deep JSON bodies on every other JSON route before parsing them', async () => {
    const deep = (prefix: string) => `${prefix}${nested(5000)}}`;
    const cases = [
      { method: 'POST' as const, url: '/idp/token', payload: deep('{"sub":"a","claims":') },
      { method: 'POST' as const, url: '/admin/faults', payload: deep('{"mode":') },
      {
        method: 'POST' as const,
        url: '/main/licensing/actions/checkout',
        payload: `[${deep('{"productName":')}]`,
        headers: { authorization: `IdToken ${signTestIdToken(app)}` },
      },
    ];
    for (const { headers, ...request } of cases) {
      const res = await app.inject({
        ...request,
        headers: { 'content-type': 'application/json', ...headers },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request' });
    }
    // The limit counts levels inside the body's own container: 64 pass.
    const ok = await app.inject({
      method: 'POST',
      url: '/idp/token',
      payload: `{"sub":"a","claims":{"c":${nested(63)}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.statusCode).toBe(200);
    expect((await app.inject({ url: '/idp/.well-known/jwks.json' })).statusCode).toBe(200);
  });

  it('honours a configured depth', async () => {
    const shallow = await buildApp({ limits: { maxJsonDepth: 2 } });
    try {
      const put = (data: string) =>
        shallow.inject({
          method: 'POST',
          url: '/events/put',
          headers: { 'content-type': 'application/json' },
          payload: event(data),
        });
      expect((await put(nested(2))).statusCode).toBe(201);
      expect((await put(nested(3))).statusCode).toBe(400);
    } finally {
      await shallow.close();
    }
  });
});
