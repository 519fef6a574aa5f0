import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyFetchFailure, createCountingFetch } from './counting-fetch.js';
import { createFleetRecorder, FLAG, NETWORK_OUTCOMES, ROUTES, SERVICES } from './fleet-records.js';

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.includes('hang')) return; // never answered
    res.writeHead(req.url?.startsWith('/standby') ? 503 : 200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function closedPortOrigin(): Promise<string> {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('createCountingFetch', () => {
  it('records service, route, status, state and timing of each request, and passes it on', async () => {
    const recorder = createFleetRecorder();
    const started: string[] = [];
    let clock = 100;
    const fetch = createCountingFetch({
      mainUrl: `${origin}/main`,
      standbyUrl: `${origin}/standby`,
      app: 7,
      recorder,
      now: () => (clock += 5),
      flags: () => 3,
      onRequest: (service, { probe }) => started.push(`${service}${probe ? ' probe' : ''}`),
    });
    const main = await fetch(`${origin}/main/authz/.jwt?ItemA&leaseId=x`, {
      headers: new Headers({ Authorization: 'IdToken x' }),
    });
    expect(await main.text()).toBe('ok');
    await fetch(new Request(`${origin}/standby/.well-known/jwks.json`));
    await fetch(new URL(`${origin}/standby/enabled`));
    await fetch(`${origin}/idp/token`);
    await fetch(`${origin}/main/.well-known/jwks.json`, {
      headers: { accept: 'application/json' },
    });
    await fetch(`${origin}/main/.well-known/jwks.json`, {
      headers: [['Authorization', 'IdToken x']],
    });
    const r = recorder.records.requests;
    expect(r.service.map((s) => SERVICES[s])).toEqual([
      'main',
      'standby',
      'standby',
      'other',
      'main',
      'main',
    ]);
    expect(r.route.map((s) => ROUTES[s])).toEqual([
      'authz',
      'jwks',
      'enabled',
      'other',
      'jwks',
      'jwks',
    ]);
    expect(r.outcome).toEqual([200, 503, 503, 200, 200, 200]);
    expect(r.app).toEqual([7, 7, 7, 7, 7, 7]);
    expect(r.flags).toEqual([3, 3, 3, 3, 3 | FLAG.probe, 3]);
    expect(r.t).toEqual([105, 115, 125, 135, 145, 155]);
    expect(r.dur).toEqual([5, 5, 5, 5, 5, 5]);
    expect(started).toEqual(['main', 'standby', 'standby', 'other', 'main probe', 'main']);
  });

  it('records a refused connection and an aborted request, and rethrows', async () => {
    const recorder = createFleetRecorder();
    const closed = await closedPortOrigin();
    const fetch = createCountingFetch({
      mainUrl: `${closed}/main`,
      standbyUrl: `${origin}/standby`,
      app: 1,
      recorder,
      now: () => 0,
      flags: () => 0,
    });
    await expect(fetch(`${closed}/main/authz/.jwt`)).rejects.toThrow();
    const timeout = AbortSignal.timeout(50);
    await expect(fetch(`${origin}/standby/hang`, { signal: timeout })).rejects.toThrow();
    const aborted = new AbortController();
    setTimeout(() => aborted.abort(), 20);
    await expect(fetch(`${origin}/standby/hang`, { signal: aborted.signal })).rejects.toThrow();
    expect(recorder.records.requests.outcome).toEqual([
      NETWORK_OUTCOMES.refused,
      NETWORK_OUTCOMES.timeout,
      NETWORK_OUTCOMES.aborted,
    ]);
  });
});

describe('classifyFetchFailure', () => {
  it('reads the code anywhere in the cause chain', () => {
    const wrapped = (code: string) => new TypeError('fetch failed', { cause: { code } });
    expect(classifyFetchFailure(wrapped('ECONNRESET'), undefined)).toBe(NETWORK_OUTCOMES.reset);
    expect(classifyFetchFailure(wrapped('UND_ERR_SOCKET'), undefined)).toBe(NETWORK_OUTCOMES.reset);
    expect(classifyFetchFailure(wrapped('ECONNREFUSED'), undefined)).toBe(NETWORK_OUTCOMES.refused);
    expect(classifyFetchFailure(new Error('x'), undefined)).toBe(NETWORK_OUTCOMES.other);
  });
});
