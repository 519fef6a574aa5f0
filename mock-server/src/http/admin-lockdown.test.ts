// The admin API is not open to other sites (DECISIONS.md "The mock server for QA and CI"): on
// /admin only loopback origins and --cors-origin origins get answers, and only loopback names,
// the public URL's host and --allowed-host names are served (DNS rebinding). Over real HTTP; the
// browser side is test/browser/admin-lockdown.test.ts.

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../../test/helpers/listen.js';
import { sendRaw } from '../../test/helpers/raw-http.js';
import { buildApp } from '../app.js';

const EVIL = 'https://evil.example';

describe('the admin API with the default CORS rules (any origin for the services)', () => {
  let app: FastifyInstance;
  let origin: string;
  let port: number;

  beforeAll(async () => {
    app = await buildApp({ admin: true, state: 'active' });
    ({ origin, port } = await listenOnLoopback(app));
  });
  afterAll(() => app.close());

  const faultCount = async () =>
    ((await (await fetch(`${origin}/admin/faults`)).json()) as { faults: unknown[] }).faults.length;

  it('refuses another site: 403 forbidden, no grant, and the change is not made', async () => {
    const res = await fetch(`${origin}/admin/faults`, {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'reset' }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'forbidden' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toMatch(/Origin/);
    expect(await faultCount()).toBe(0);
    // Reads too: the journal and the standby view.
    for (const path of ['/admin/requests', '/admin/standby', '/admin/console']) {
      const read = await fetch(`${origin}${path}`, { headers: { origin: EVIL } });
      expect(read.status).toBe(403);
      expect(read.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('refuses the preflight of another site without any grant', async () => {
    const res = await fetch(`${origin}/admin/clock`, {
      method: 'OPTIONS',
      headers: {
        origin: EVIL,
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'forbidden' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
  });

  it.each([
    'http://127.0.0.1:5173',
    'http://localhost',
    'https://localhost:8443',
    'http://[::1]:3000',
  ])('answers a page on the loopback origin %s, preflight included', async (page) => {
    const preflight = await fetch(`${origin}/admin/faults`, {
      method: 'OPTIONS',
      headers: { origin: page, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(page);
    const res = await fetch(`${origin}/admin/faults`, { headers: { origin: page } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(page);
  });

  it.each([
    ['a look-alike host', 'http://127.0.0.1.evil.example'],
    ['another loopback address', 'http://127.0.0.2'],
    ['a sandboxed page or file', 'null'],
    ['another scheme', 'ftp://localhost'],
    ['a subdomain of localhost', 'http://evil.localhost'],
  ])('refuses %s (%s)', async (_what, page) => {
    const res = await fetch(`${origin}/admin/scenarios`, { headers: { origin: page } });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a rebound host name (DNS rebinding): 403 on /admin, the services still answer', async () => {
    const rebound = await sendRaw(
      port,
      'GET /admin/standby HTTP/1.1\r\nHost: evil.example:8787\r\nConnection: close\r\n\r\n',
    );
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: 'forbidden' });
    const scenario = await sendRaw(
      port,
      'POST /admin/scenarios/main-down HTTP/1.1\r\nHost: attacker.test\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    );
    expect(scenario.status).toBe(403);
    expect(await faultCount()).toBe(0);
    const service = await sendRaw(
      port,
      'GET /idp/.well-known/openid-configuration HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
    );
    expect(service.status).toBe(200);
  });

  it.each(['127.0.0.1', `127.0.0.1:${0}`, 'localhost:9', 'LOCALHOST', '[::1]:8787'])(
    'serves the loopback Host %s',
    async (host) => {
      const answer = await sendRaw(
        port,
        `GET /admin/clock HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status).toBe(200);
    },
  );

  it('keeps the services open to any origin', async () => {
    const res = await fetch(`${origin}/main/.well-known/jwks.json`, { headers: { origin: EVIL } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(EVIL);
    expect(res.headers.get('access-control-expose-headers')).toBe(
      'Retry-After, WWW-Authenticate, Date',
    );
  });
});

describe('the admin API with --cors-origin, --public-url and --allowed-host', () => {
  let app: FastifyInstance;
  let port: number;
  const APP = 'https://qa.example.test';

  beforeAll(async () => {
    app = await buildApp({
      admin: true,
      corsOrigins: [APP],
      publicUrl: 'https://licensing.example.test',
      allowedHosts: ['mock.ci.internal'],
    });
    ({ port } = await listenOnLoopback(app));
  });
  afterAll(() => app.close());

  const get = (host: string, origin?: string) =>
    sendRaw(
      port,
      `GET /admin/faults HTTP/1.1\r\nHost: ${host}\r\n${origin ? `Origin: ${origin}\r\n` : ''}Connection: close\r\n\r\n`,
    );

  it('answers an origin named by --cors-origin, and loopback pages still', async () => {
    const listed = await get('127.0.0.1', APP);
    expect(listed.status).toBe(200);
    expect(listed.headers['access-control-allow-origin']).toBe(APP);
    const local = await get('127.0.0.1', 'http://localhost:4200');
    expect(local.status).toBe(200);
    expect(local.headers['access-control-allow-origin']).toBe('http://localhost:4200');
    expect((await get('127.0.0.1', EVIL)).status).toBe(403);
  });

  it('serves the public URL host and the --allowed-host names, no others', async () => {
    expect((await get('licensing.example.test')).status).toBe(200);
    expect((await get('Mock.CI.internal:8787')).status).toBe(200);
    expect((await get('mock.ci.internal.evil.example')).status).toBe(403);
    expect((await get('example.test')).status).toBe(403);
  });

  it("serves the console's own same-origin calls on an allowed host", async () => {
    const same = await get('mock.ci.internal:8787', 'http://mock.ci.internal:8787');
    expect(same.status).toBe(200);
    // Same origin needs no grant; a foreign page on that host name would fail the Host check.
    expect((await get('evil.example:8787', 'http://evil.example:8787')).status).toBe(403);
  });

  it('refuses a host name that is not one', async () => {
    await expect(buildApp({ admin: true, allowedHosts: ['http://x.test'] })).rejects.toThrow(
      /allowedHosts/,
    );
    await expect(buildApp({ admin: true, allowedHosts: ['x.test:80'] })).rejects.toThrow(
      /allowedHosts/,
    );
  });
});

describe('without the admin API', () => {
  it('has no lockdown to apply: /admin is a plain 404 for anyone', async () => {
    const app = await buildApp();
    try {
      const res = await app.inject({
        url: '/admin/faults',
        headers: { host: 'evil.example', origin: EVIL },
      });
      expect(res.statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});
