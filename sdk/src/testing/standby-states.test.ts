import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  STANDBY_DORMANT_BODY,
  standbyAbsent,
  standbyDisabled,
  standbyDormant,
  standbyEnabled,
} from './index.js';

const STANDBY = 'https://standby.licensing.test/v1/';
const BASE = 'https://standby.licensing.test/v1';
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

async function status(path: string): Promise<unknown> {
  const response = await fetch(`${BASE}${path}`, { headers: { Authorization: 'IdToken x' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return response.json();
}

/** A stand-in for the real management endpoint, so fall-through is observable. */
const management = http.all(`${BASE}/:state`, ({ request }) =>
  HttpResponse.json({ management: request.headers.get('x-vendor-apikey') ?? 'default' }),
);

describe('standbyEnabled / standbyDisabled', () => {
  it('standbyEnabled reports enabled on both status checks', async () => {
    server.use(...standbyEnabled(STANDBY));
    expect(await status('/enabled')).toBe(true);
    expect(await status('/disabled')).toBe(false);
  });

  it('standbyDisabled reports disabled on both status checks', async () => {
    server.use(...standbyDisabled(STANDBY));
    expect(await status('/enabled')).toBe(false);
    expect(await status('/disabled')).toBe(true);
  });

  it('leaves management calls (API-key header, renamed too) to the next handler', async () => {
    server.use(...standbyDisabled(STANDBY, { apiKeyHeader: 'X-Vendor-ApiKey' }), management);
    const response = await fetch(`${BASE}/disabled`, { headers: { 'X-Vendor-ApiKey': 'k' } });
    expect(await response.json()).toEqual({ management: 'k' });
    expect(await status('/disabled')).toBe(true);
  });

  it('does not touch licensing routes', async () => {
    server.use(
      ...standbyEnabled(STANDBY),
      http.all(`${BASE}/authz/.jwt`, () => HttpResponse.text('next handler')),
    );
    expect(await (await fetch(`${BASE}/authz/.jwt?ItemA`)).text()).toBe('next handler');
  });
});

describe('standbyDormant', () => {
  it.each([
    ['GET', '/authz/.jwt?ItemA'],
    ['POST', '/authz/.jwt'],
    ['GET', '/.well-known/jwks.json'],
  ])('%s %s answers 403 standby_dormant', async (method, path) => {
    server.use(...standbyDormant(STANDBY));
    const response = await fetch(`${BASE}${path}`, { method });
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(STANDBY_DORMANT_BODY);
  });

  it('reports disabled, or enabled while the switch-off propagates', async () => {
    server.use(...standbyDormant(STANDBY));
    expect(await status('/enabled')).toBe(false);
    server.resetHandlers(...standbyDormant(STANDBY, { reportEnabled: true }));
    expect(await status('/enabled')).toBe(true);
    expect((await fetch(`${BASE}/authz/.jwt?ItemA`)).status).toBe(403);
  });
});

describe('standbyAbsent', () => {
  it.each(['/enabled', '/authz/.jwt?ItemA', '/.well-known/jwks.json'])(
    '%s is a network error',
    async (path) => {
      server.use(...standbyAbsent(STANDBY));
      await expect(fetch(`${BASE}${path}`)).rejects.toBeInstanceOf(TypeError);
    },
  );

  it('can fail as a DNS failure', async () => {
    server.use(...standbyAbsent(STANDBY, { failure: 'dns' }));
    await expect(fetch(`${BASE}/enabled`)).rejects.toMatchObject({
      cause: { code: 'ENOTFOUND' },
    });
  });
});
