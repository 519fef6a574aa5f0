// Every named scenario applied to the real mock listening on loopback, and checked by what a
// client meets on each service: the broken ones fail the scenario's way, the others answer.

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { listenOnLoopback } from '../../test/helpers/listen.js';
import { buildApp } from '../app.js';
import { SCENARIOS, type ScenarioName } from './scenarios.js';

/** What a request met: `network error`, `held` (no answer yet), or status and media type. */
type Outcome = string;

describe('scenarios against the real mock', () => {
  let app: FastifyInstance;
  let origin: string;
  let auth: Record<string, string>;

  const admin = async (method: string, path: string) => {
    const res = await fetch(`${origin}/admin${path}`, { method });
    return { status: res.status, body: await res.json() };
  };
  const held = async () => (await admin('GET', '/faults')).body.held as Record<string, number>;

  /**
   * Sends a request. One that a hang or delay holds is seen through the admin API (`held`
   * rises), then abandoned, and `held` is back where it was before the next request.
   */
  const meet = async (path: string, init: RequestInit = {}): Promise<Outcome> => {
    const controller = new AbortController();
    const before = await held();
    let settled = false;
    const pending = fetch(`${origin}${path}`, { ...init, signal: controller.signal })
      .then(
        (res) => `${res.status} ${res.headers.get('content-type')?.split(';')[0]}`,
        (err: Error) => (err.name === 'AbortError' ? 'held' : 'network error'),
      )
      .finally(() => {
        settled = true;
      });
    while (!settled) {
      const now = await held();
      if (now.hang > before.hang || now.delay > before.delay) {
        controller.abort();
        await vi.waitFor(async () => expect(await held()).toEqual(before));
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return pending;
  };
  const main = () => meet('/main/authz/.jwt?ItemA', { headers: auth });
  const mainJwks = () => meet('/main/.well-known/jwks.json');
  const standby = () => meet('/standby/authz/.jwt?ItemA', { headers: auth });
  const idp = () => meet('/idp/.well-known/openid-configuration');
  const events = () =>
    meet('/events/put', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ eventType: 'Drill', eventSourceId: 'qa' }),
    });

  beforeAll(async () => {
    app = await buildApp({ admin: true, state: 'active' });
    ({ origin } = await listenOnLoopback(app));
    auth = { authorization: `IdToken ${signTestIdToken(app)}` };
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await admin('DELETE', '/faults');
  });

  it('lists at least the eight drills DECISIONS names, each with its faults', async () => {
    const { status, body } = await admin('GET', '/scenarios');
    expect(status).toBe(200);
    const names = body.scenarios.map((s: { name: string }) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'main-down',
        'main-hang',
        'main-503',
        'main-rate-limited',
        'main-jwks-outage',
        'idp-down',
        'captive-portal',
        'standby-slow',
      ]),
    );
    expect(names).toEqual(Object.keys(SCENARIOS));
    for (const scenario of body.scenarios) {
      expect(scenario.description).not.toBe('');
      expect(scenario.faults.length).toBeGreaterThan(0);
    }
  });

  const healthy = '200 application/jwt';
  const cases: Array<[ScenarioName, Record<string, () => Promise<Outcome>>, Outcome[]]> = [
    ['main-down', { main, mainJwks, standby, idp, events }, ['network error', 'network error']],
    ['main-hang', { main, mainJwks, standby, idp, events }, ['held', 'held']],
    ['main-503', { main, mainJwks, standby, idp, events }, ['503 text/html', '503 text/html']],
    [
      'main-rate-limited',
      { main, mainJwks, standby, idp, events },
      ['429 application/json', '429 application/json'],
    ],
    ['main-jwks-outage', { main, mainJwks, standby, idp, events }, [healthy, '503 text/html']],
    [
      'captive-portal',
      { main, mainJwks, standby, idp, events },
      ['200 text/html', '200 text/html'],
    ],
  ];

  it.each(cases)('%s breaks main only', async (name, services, expected) => {
    const applied = await admin('POST', `/scenarios/${name}`);
    expect(applied.status).toBe(200);
    expect(applied.body.scenario).toBe(name);
    expect(applied.body.faults).toHaveLength(SCENARIOS[name].faults.length);
    expect([await services.main!(), await services.mainJwks!()]).toEqual(expected);
    expect(await services.standby!()).toBe(healthy);
    expect(await services.idp!()).toBe('200 application/json');
    expect(await services.events!()).toBe('201 undefined');
  });

  it('main-rate-limited sends Retry-After: 1', async () => {
    await admin('POST', '/scenarios/main-rate-limited');
    const res = await fetch(`${origin}/main/authz/.jwt?ItemA`, { headers: auth });
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({ error: 'too_many_requests' });
  });

  it('idp-down breaks the issuer only: main and the standby still license', async () => {
    await admin('POST', '/scenarios/idp-down');
    expect(await idp()).toBe('network error');
    expect(await main()).toBe(healthy);
    expect(await standby()).toBe(healthy);
  });

  it('standby-slow holds standby requests while main answers at once', async () => {
    await admin('POST', '/scenarios/standby-slow');
    expect(await standby()).toBe('held');
    expect(await main()).toBe(healthy);
    const [fault] = (await admin('GET', '/faults')).body.faults;
    expect(fault).toMatchObject({ service: 'standby', mode: 'delay', delayMs: 2500, hits: 1 });
  });

  it('standby-down and events-down break their own service', async () => {
    await admin('POST', '/scenarios/standby-down');
    expect(await standby()).toBe('network error');
    expect(await main()).toBe(healthy);
    await admin('DELETE', '/faults');
    await admin('POST', '/scenarios/events-down');
    expect(await events()).toBe('network error');
    expect(await main()).toBe(healthy);
  });

  it('replaces the faults it touches, keeps the others, and ends with DELETE /admin/faults', async () => {
    await fetch(`${origin}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ service: 'idp', mode: 'error' }),
    });
    await admin('POST', '/scenarios/main-503');
    await admin('POST', '/scenarios/main-down');
    const listed = (await admin('GET', '/faults')).body.faults;
    expect(listed.map((f: { service: string; mode: string }) => `${f.service} ${f.mode}`)).toEqual([
      'main reset',
      'idp error',
    ]);
    expect(await main()).toBe('network error');
    expect((await admin('DELETE', '/faults')).body).toEqual({ cleared: 2 });
    expect(await main()).toBe(healthy);
  });

  it('answers an unknown scenario with a 404 ApiError and sets nothing', async () => {
    const res = await admin('POST', '/scenarios/main-on-fire');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found' });
    expect(res.body.error_description).toContain('main-down');
    expect((await admin('GET', '/faults')).body.faults).toEqual([]);
  });
});
