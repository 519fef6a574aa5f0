// The abuse suite: hostile and sloppy input, generated with fast-check, on every route the server
// describes. Whatever arrives, the server answers below 500, every 4xx is an ApiError, nothing
// forged is accepted, and it still answers afterwards. Runs per property: ABUSE_RUNS (default 40).
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  abuseRunOptions,
  bodyContentType,
  bodyPayload,
  type CraftedJws,
  contentType,
  craftedJws,
  encodeText,
  headerText,
  queryString,
  rawRequest,
  type SigningKeys,
  schemaShapedBody,
  trickyText,
} from '../test/helpers/abuse-arbitraries.js';
import { signTestIdToken } from '../test/helpers/id-tokens.js';
import { listenOnLoopback } from '../test/helpers/listen.js';
import { parseRawAnswer, sendRaw } from '../test/helpers/raw-http.js';
import { type DescribedRoute, describedRoutes } from '../test/helpers/routes.js';
import { buildApp } from './app.js';
import { computeServiceKeyHash } from './auth/service-key-hash.js';

const RUNS = Number(process.env.ABUSE_RUNS ?? 40);
const PAGE = 'http://page.example.test';
const API_ERROR_MEMBERS = ['error', 'error_description', 'error_uri'];

/** Checks one answer: no 5xx, an ApiError on every 4xx that may carry a body, CORS headers. */
function checkAnswer(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  method: string,
  sentOrigin: boolean,
  what: string,
): void {
  expect(res.statusCode, what).toBeLessThan(500);
  if (res.statusCode >= 400 && method !== 'HEAD') {
    expect(String(res.headers['content-type']), what).toMatch(/^application\/json/);
    const body = JSON.parse(res.body) as Record<string, unknown>;
    expect(typeof body.error, what).toBe('string');
    for (const key of Object.keys(body)) expect(API_ERROR_MEMBERS, what).toContain(key);
  }
  if (sentOrigin) expect(String(res.headers.vary), what).toMatch(/Origin/);
}

const withBody = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method);

describe('abuse suite: generated hostile input on every route', () => {
  let app: FastifyInstance;
  let routes: DescribedRoute[];
  /** Routes that answer 401 without credentials: a forged token must never get through them. */
  let guarded: Set<string>;
  let keys: SigningKeys;
  let valid: { idToken: string; readToken: string; serviceKeyHash: string; apiKey: string };
  let tokenClaims: fc.Arbitrary<unknown>;
  let events: fc.Arbitrary<unknown>;
  const stats = { requests: 0 };

  beforeAll(async () => {
    const writer = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    app = await buildApp({
      state: 'active',
      admin: true,
      eventWriterKeys: [writer.publicKey.export({ type: 'spki', format: 'pem' }).toString()],
    });
    routes = [
      // The live request log's event stream never ends by design, so inject() cannot await an
      // answer from it; admin/request-stream.test.ts covers it over real HTTP instead.
      ...describedRoutes(app).filter((route) => route.path !== '/admin/requests/stream'),
      // Routes nobody described: unknown paths and methods.
      { method: 'GET', path: '/nowhere', url: '/nowhere' },
      { method: 'POST', path: '/standby/nowhere', url: '/standby/nowhere' },
      { method: 'DELETE', path: '/events/get/x', url: '/events/get/x' },
      { method: 'PROPFIND', path: '/standby/enabled', url: '/standby/enabled' },
      { method: 'OPTIONS', path: '/standby/authz/.jwt', url: '/standby/authz/.jwt' },
    ];
    keys = {
      issuer: { kid: app.keyring.issuer.kid, privateKey: app.keyring.issuer.privateKey },
      writer: { kid: 'writer', privateKey: writer.privateKey },
      stranger: { kid: 'stranger', privateKey: stranger.privateKey },
    };
    const now = Math.floor(Date.now() / 1000);
    valid = {
      idToken: signTestIdToken(app, { claims: { exp: now + 86_400 } }),
      readToken: signTestIdToken(app, { claims: { '*': true, exp: now + 86_400 } }),
      serviceKeyHash: computeServiceKeyHash(app.keyring.main.publicKey),
      apiKey: app.apiKey,
    };
    // Good claims (for ID tokens and read tokens alike) and good events: the flaw is elsewhere.
    tokenClaims = fc.record({
      iss: fc.constant(app.config.issuer),
      aud: fc.constantFrom(app.config.clientId, [app.config.clientId, 'other']),
      sub: fc.constantFrom('user', 'u-2'),
      iat: fc.constantFrom(now, now - 60),
      exp: fc.constantFrom(now + 3600, now + 60),
      '*': fc.constant(true),
    });
    events = fc.array(
      fc.record({ eventType: fc.constant('Jws'), eventSourceId: fc.constantFrom('jws', 'j2') }),
      { minLength: 1, maxLength: 3 },
    );
    guarded = new Set();
    for (const route of routes) {
      const res = await app.inject({ method: route.method as 'GET', url: route.url });
      if (res.statusCode === 401) guarded.add(`${route.method} ${route.path}`);
    }
    expect(guarded.size).toBeGreaterThan(8);
  });

  afterAll(async () => {
    // One line for the report: how much the suite sent.
    console.info(
      `abuse suite: ${routes.length} routes, ${stats.requests} requests, ${RUNS} runs per property`,
    );
    await app.close();
  });

  afterEach(async () => {
    // The server still answers after every property.
    const res = await app.inject({ url: '/idp/.well-known/jwks.json' });
    expect(res.statusCode).toBe(200);
  });

  /** Sends one request; admin side effects (faults, clock) are undone at once. */
  async function send(route: DescribedRoute, options: Omit<InjectOptions, 'method'>) {
    stats.requests++;
    const res = await app.inject({ method: route.method as 'GET', ...options });
    if (route.path.startsWith('/admin')) {
      await app.inject({ method: 'DELETE', url: '/admin/faults' });
      await app.inject({ method: 'PUT', url: '/admin/clock', payload: { offsetMs: 0 } });
    }
    return res as LightMyRequestResponse;
  }

  /** Credentials a request may carry: none, valid ones (to reach deeper code), or garbage. */
  const authorization = fc.option(
    fc.oneof(
      fc
        .constantFrom('IdToken', 'Bearer', 'ServiceKeyHash', 'idtoken', 'Basic', '')
        .chain((scheme) => fc.oneof(trickyText, headerText).map((value) => `${scheme} ${value}`)),
      fc.constant('__valid__'),
      headerText,
      fc.integer({ min: 9000, max: 20_000 }).map((n) => `IdToken ${'a'.repeat(n)}`),
    ),
  );

  function resolveAuthorization(value: string | null, route: DescribedRoute): string | undefined {
    if (value === null) return undefined;
    if (value !== '__valid__') return value;
    if (route.path.startsWith('/events')) return `Bearer ${valid.readToken}`;
    return route.path.includes('checkout')
      ? `IdToken ${valid.idToken}`
      : `ServiceKeyHash ${valid.serviceKeyHash}`;
  }

  const headers = fc.record(
    {
      authorization,
      'content-type': contentType,
      // Never the real key on POST /signing-keys: each new key costs two RSA key generations.
      apiKey: fc.oneof(fc.constant('__valid__'), headerText),
      'service-signingkeyid': fc.oneof(trickyText.map(encodeText), fc.constant('')),
      origin: fc.oneof(fc.constant(PAGE), headerText),
      accept: headerText,
      host: fc.oneof(headerText, fc.constant('user:pw@evil.test')),
      'x-forwarded-host': headerText,
      'accept-encoding': headerText,
    },
    { requiredKeys: [] },
  );

  function buildHeaders(
    generated: Record<string, string | null | undefined>,
    route: DescribedRoute,
  ): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(generated)) {
      if (value === undefined || value === null) continue;
      if (name === 'authorization') {
        const resolved = resolveAuthorization(value, route);
        if (resolved !== undefined) out.authorization = resolved;
      } else if (name === 'apiKey') {
        const key =
          value === '__valid__' && !route.path.endsWith('/signing-keys') ? valid.apiKey : value;
        out['service-apikey'] = key === '__valid__' ? 'wrong' : key;
      } else {
        out[name] = value;
      }
    }
    return out;
  }
  it('answers malformed query strings below 500, with ApiErrors', async () => {
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(queryString, authorization, async (query, auth) => {
          const resolved = resolveAuthorization(auth, route);
          const res = await send(route, {
            url: `${route.url}?${query}`,
            headers: { origin: PAGE, ...(resolved ? { authorization: resolved } : {}) },
          });
          checkAnswer(res, route.method, true, `${route.method} ${route.url}?${query}`);
        }),
        abuseRunOptions(RUNS),
      );
    }
  });

  it('answers malformed headers below 500, with ApiErrors', async () => {
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(headers, async (generated) => {
          const sent = buildHeaders(generated, route);
          const res = await send(route, { url: route.url, headers: sent });
          checkAnswer(
            res,
            route.method,
            sent.origin !== undefined,
            `${route.method} ${route.url} ${JSON.stringify(sent).slice(0, 300)}`,
          );
        }),
        abuseRunOptions(RUNS),
      );
    }
  });

  it('answers malformed bodies below 500, with ApiErrors', async () => {
    for (const route of routes.filter((r) => withBody(r.method))) {
      // Half the bodies follow the route's own schema (as JSON), to get past it with poison inside.
      const generic = fc
        .tuple(bodyPayload, bodyContentType, contentType)
        .map(([body, usual, any]) => ({ body, type: usual === '__any__' ? any : usual }));
      const payload = route.bodySchema
        ? fc.oneof(
            generic,
            schemaShapedBody(route.bodySchema).map((body) => ({ body, type: 'application/json' })),
          )
        : generic;
      await fc.assert(
        fc.asyncProperty(payload, authorization, async ({ body, type }, auth) => {
          const resolved = resolveAuthorization(auth, route);
          const res = await send(route, {
            url: route.url,
            headers: {
              'content-type': type,
              origin: PAGE,
              ...(resolved ? { authorization: resolved } : {}),
            },
            payload: body,
          });
          checkAnswer(res, route.method, true, `${route.method} ${route.url} ${type}`);
        }),
        abuseRunOptions(RUNS),
      );
    }
  });

  it('never accepts a forged token or JWS, accepts good ones, and answers all below 500', async () => {
    const scheme = fc.constantFrom('IdToken', 'Bearer', 'ServiceKeyHash');
    let accepted = 0;
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const isPut = route.path === '/events/put';
      const jws = isPut
        ? craftedJws(keys, { signer: 'writer', payload: events })
        : craftedJws(keys, { signer: 'issuer', payload: tokenClaims });
      await fc.assert(
        fc.asyncProperty(jws, scheme, async (crafted: CraftedJws, s) => {
          const res = await send(route, {
            url: route.url,
            headers: isPut
              ? { 'content-type': 'application/jose', origin: PAGE }
              : { authorization: `${s} ${crafted.token}`, origin: PAGE },
            ...(isPut ? { payload: crafted.token } : {}),
          });
          const what = `${key} ${crafted.describe}`;
          checkAnswer(res, route.method, true, what);
          if (crafted.forged && (guarded.has(key) || isPut)) {
            expect(res.statusCode, what).toBeGreaterThanOrEqual(400);
          }
          if (!crafted.forged && (guarded.has(key) || isPut) && res.statusCode < 300) accepted++;
        }),
        abuseRunOptions(RUNS),
      );
    }
    // Not vacuous: good tokens and writes did get through.
    expect(accepted).toBeGreaterThan(0);
  });

  it('answers raw HTTP it cannot parse with ApiErrors over a real socket', async () => {
    const listening = await buildApp({
      state: 'active',
      limits: { requestTimeoutMs: 300, keepAliveTimeoutMs: 200 },
    });
    const { port, origin } = await listenOnLoopback(listening);
    try {
      const paths = [...new Set(routes.map((r) => r.url))];
      await fc.assert(
        fc.asyncProperty(rawRequest(paths), async (request) => {
          stats.requests++;
          const answer = await sendRaw(port, request);
          // A first answer (100 Continue aside), if the server gave one before closing.
          const first =
            answer.status === 100
              ? parseRawAnswer(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4))
              : answer;
          if (first.status === 0) return;
          const what = JSON.stringify(request.slice(0, 200));
          expect(first.status, what).toBeLessThan(500);
          if (first.status >= 400 && first.body !== '') {
            const body = JSON.parse(first.body) as Record<string, unknown>;
            expect(typeof body.error, what).toBe('string');
            for (const key of Object.keys(body)) expect(API_ERROR_MEMBERS, what).toContain(key);
          }
        }),
        abuseRunOptions(RUNS * 4),
      );
      expect((await fetch(`${origin}/idp/.well-known/jwks.json`)).status).toBe(200);
    } finally {
      await listening.close();
    }
  });
});
