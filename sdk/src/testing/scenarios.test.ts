import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RealServer, startRealServer } from '../../test/helpers/real-server.js';
import {
  createRequestRecorder,
  mainDown,
  mainFlaps,
  STANDBY_DORMANT_BODY,
  standbySwitchedOffMidOutage,
} from './index.js';

const MAIN = 'https://main.licensing.test';
const server = setupServer();
let real: RealServer;
let STANDBY: string;

beforeAll(async () => {
  real = await startRealServer();
  STANDBY = `${real.url}/standby`;
  server.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => server.resetHandlers());
afterAll(async () => {
  server.close();
  await real.close();
});

/** `net` for a network error, else `<status> <body>`. */
async function outcome(url: string, init?: RequestInit): Promise<string> {
  return fetch(url, init).then(
    async (response) => `${response.status} ${await response.text()}`,
    (error: unknown) => (error instanceof TypeError ? 'net' : `threw ${String(error)}`),
  );
}

describe('mainDown', () => {
  it('breaks main for every request and passes the standby through to the real server', async () => {
    server.use(...mainDown({ mainUrl: MAIN, standbyUrl: STANDBY }));
    for (let i = 0; i < 3; i++) expect(await outcome(`${MAIN}/authz/.jwt?ItemA`)).toBe('net');
    expect(await outcome(`${STANDBY}/authz/.jwt?ItemA`)).toBe(
      '200 real GET /standby/authz/.jwt?ItemA',
    );
  });

  it('takes the failure and the standby state', async () => {
    server.use(
      ...mainDown({
        mainUrl: MAIN,
        standbyUrl: STANDBY,
        failure: 'unavailable',
        standby: 'dormant',
      }),
    );
    expect(await outcome(`${MAIN}/authz/.jwt`)).toMatch(/^503 <!DOCTYPE html>/);
    expect(await outcome(`${STANDBY}/.well-known/jwks.json`)).toBe(
      `403 ${JSON.stringify(STANDBY_DORMANT_BODY)}`,
    );
    expect(await outcome(`${STANDBY}/enabled`)).toBe('200 false');
  });
});

describe('mainFlaps', () => {
  it('alternates failure and success by default', async () => {
    server.use(...mainFlaps({ mainUrl: MAIN, pass: () => new Response('ok') }));
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(await outcome(`${MAIN}/authz/.jwt`));
    expect(seen).toEqual(['net', '200 ok', 'net', '200 ok', 'net', '200 ok']);
  });

  it('cycles N failures and M passes', async () => {
    server.use(
      ...mainFlaps({
        mainUrl: MAIN,
        failures: 2,
        passes: 3,
        failure: 'rate-limited',
        pass: () => new Response('ok'),
      }),
    );
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) seen.push((await fetch(`${MAIN}/authz/.jwt`)).status);
    expect(seen).toEqual([429, 429, 200, 200, 200, 429, 429, 200, 200, 200]);
  });

  it('recovers for good after N failures with passes: Infinity', async () => {
    server.use(...mainFlaps({ mainUrl: real.url, failures: 3, passes: Number.POSITIVE_INFINITY }));
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(await outcome(`${real.url}/authz/.jwt`));
    expect(seen).toEqual(['net', 'net', 'net', ...Array(3).fill('200 real GET /authz/.jwt')]);
  });

  it('validates its counts', () => {
    expect(() => mainFlaps({ mainUrl: MAIN, failures: 0, passes: 0 })).toThrow(TypeError);
    expect(() => mainFlaps({ mainUrl: MAIN, passes: -1 })).toThrow(/passes/);
  });
});

describe('standbySwitchedOffMidOutage', () => {
  it('serves K authz calls, then answers as a dormant standby', async () => {
    const recorder = createRequestRecorder({ main: MAIN, standby: STANDBY });
    const detach = recorder.attach(server);
    server.use(
      ...standbySwitchedOffMidOutage({ mainUrl: MAIN, standbyUrl: STANDBY, enabledCalls: 2 }),
    );

    expect(await outcome(`${MAIN}/authz/.jwt?ItemA`)).toBe('net');
    expect(await outcome(`${STANDBY}/enabled`)).toBe('200 real GET /standby/enabled');
    expect(await outcome(`${STANDBY}/authz/.jwt?ItemA`)).toMatch(/^200 real/);
    expect(await outcome(`${STANDBY}/.well-known/jwks.json`)).toMatch(/^200 real/);
    expect(await outcome(`${STANDBY}/authz/.jwt?ItemA`, { method: 'POST' })).toMatch(/^200 real/);
    // Third authz call: switched off from here on.
    expect(await outcome(`${STANDBY}/authz/.jwt?ItemA`)).toBe(
      `403 ${JSON.stringify(STANDBY_DORMANT_BODY)}`,
    );
    expect(await outcome(`${STANDBY}/enabled`)).toBe('200 false');
    expect(await outcome(`${STANDBY}/disabled`)).toBe('200 true');
    expect(await outcome(`${STANDBY}/.well-known/jwks.json`)).toMatch(/^403 /);
    // Management calls still reach the real server.
    expect(
      await outcome(`${STANDBY}/enabled`, { method: 'POST', headers: { 'Service-ApiKey': 'k' } }),
    ).toBe('200 real POST /standby/enabled');

    expect(recorder.count({ service: 'standby', route: '/authz/.jwt' })).toBe(3);
    expect(recorder.count({ service: 'main' })).toBe(1);
    detach();
  });

  it('can vanish instead, and switch off at once with enabledCalls 0', async () => {
    server.use(
      ...standbySwitchedOffMidOutage({
        mainUrl: MAIN,
        standbyUrl: STANDBY,
        enabledCalls: 0,
        off: 'absent',
      }),
    );
    expect(await outcome(`${STANDBY}/enabled`)).toBe('net');
    expect(await outcome(`${STANDBY}/authz/.jwt?ItemA`)).toBe('net');
  });
});
