import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RealServer, startRealServer } from '../../test/helpers/real-server.js';
import {
  mainCaptivePortal,
  mainDelay,
  mainDnsFailure,
  mainFlaky,
  mainHang,
  mainRateLimited,
  mainRefused,
  mainReset,
  mainServerError,
  passthroughService,
} from './index.js';

const MAIN = 'https://main.licensing.test/api';
const server = setupServer();
let real: RealServer;

beforeAll(async () => {
  real = await startRealServer();
  server.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
});
afterAll(async () => {
  server.close();
  await real.close();
});

const ROUTES = [
  ['GET', '/authz/.jwt?ItemA'],
  ['POST', '/authz/.jwt'],
  ['GET', '/.well-known/jwks.json'],
  ['POST', '/licensing/actions/checkout'],
] as const;

async function failureOf(url: string, init?: RequestInit): Promise<unknown> {
  return fetch(url, init).then(
    () => expect.unreachable('fetch should have rejected'),
    (error: unknown) => error,
  );
}

describe('network failures', () => {
  it.each(ROUTES)('mainRefused: %s %s rejects with a TypeError', async (method, path) => {
    server.use(...mainRefused(MAIN));
    const error = await failureOf(`${MAIN}${path}`, { method });
    expect(error).toBeInstanceOf(TypeError);
  });

  it('mainRefused and mainReset carry the socket error code on the cause', async () => {
    server.use(...mainRefused(MAIN));
    const refused = (await failureOf(`${MAIN}/authz/.jwt?ItemA`)) as TypeError;
    expect(refused.cause).toMatchObject({ code: 'ECONNREFUSED', syscall: 'connect', port: 443 });
    server.use(...mainReset(MAIN));
    const reset = (await failureOf(`${MAIN}/authz/.jwt?ItemA`)) as TypeError;
    expect(reset).toBeInstanceOf(TypeError);
    expect(reset.cause).toMatchObject({ code: 'ECONNRESET' });
  });

  it('mainDnsFailure rejects with a TypeError whose cause has code ENOTFOUND', async () => {
    server.use(...mainDnsFailure(MAIN));
    const error = (await failureOf(`${MAIN}/.well-known/jwks.json`)) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.cause).toMatchObject({
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
      hostname: 'main.licensing.test',
    });
  });

  it('leaves other hosts alone', async () => {
    server.use(...mainRefused(MAIN));
    const error = (await failureOf('https://other.test/api/authz/.jwt')) as Error;
    expect(error.message).not.toBe('Failed to fetch');
  });

  it('paths narrows the failure to the given routes', async () => {
    server.use(
      ...mainRefused(real.url, { paths: ['/authz/.jwt'] }),
      ...passthroughService(real.url),
    );
    expect(await failureOf(`${real.url}/authz/.jwt?ItemA`)).toBeInstanceOf(TypeError);
    const response = await fetch(`${real.url}/licensing/actions/checkout`, { method: 'POST' });
    expect(await response.text()).toBe('real POST /licensing/actions/checkout');
  });
});

describe('mainHang', () => {
  it('never answers until the request signal aborts, then rejects with the abort reason', async () => {
    server.use(...mainHang(MAIN));
    const controller = new AbortController();
    let settled = false;
    const pending = fetch(`${MAIN}/authz/.jwt?ItemA`, { signal: controller.signal }).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const reason = new Error('attempt timed out');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});

describe('HTTP failures', () => {
  it.each([500, 503])('mainServerError %i answers an HTML page', async (status) => {
    server.use(...mainServerError(MAIN, { status }));
    for (const [method, path] of ROUTES) {
      const response = await fetch(`${MAIN}${path}`, { method });
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text()).toMatch(new RegExp(`^<!DOCTYPE html>[\\s\\S]*${status}`));
    }
  });

  it('mainServerError defaults to 503 and takes any status', async () => {
    server.use(...mainServerError(MAIN));
    expect((await fetch(`${MAIN}/authz/.jwt`)).status).toBe(503);
    server.use(...mainServerError(MAIN, { status: 502 }));
    const response = await fetch(`${MAIN}/authz/.jwt`);
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('mainRateLimited answers 429 with Retry-After and an ApiError body', async () => {
    server.use(...mainRateLimited(MAIN));
    let response = await fetch(`${MAIN}/authz/.jwt?ItemA`);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual({
      error: 'too_many_requests',
      error_description: 'Rate limit exceeded',
    });
    server.use(...mainRateLimited(MAIN, { retryAfter: 'Wed, 21 Oct 2037 07:28:00 GMT' }));
    response = await fetch(`${MAIN}/licensing/actions/checkout`, { method: 'POST' });
    expect(response.headers.get('retry-after')).toBe('Wed, 21 Oct 2037 07:28:00 GMT');
  });

  it('mainCaptivePortal answers 200 with an HTML page, not a JWT', async () => {
    server.use(...mainCaptivePortal(MAIN));
    const response = await fetch(`${MAIN}/authz/.jwt?ItemA`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const body = await response.text();
    expect(body).toMatch(/^<!DOCTYPE html>/);
    expect(body.split('.')).not.toHaveLength(3);
  });
});

describe('mainFlaky', () => {
  it('fails exactly N requests across routes, then passes through to the real server', async () => {
    server.use(...mainFlaky(real.url, { failures: 3, failure: 'refused' }));
    const results: string[] = [];
    for (const [method, path] of [...ROUTES, ...ROUTES]) {
      const outcome = await fetch(`${real.url}${path}`, { method }).then(
        async (response) => `${response.status} ${await response.text()}`,
        (error: unknown) => (error instanceof TypeError ? 'network error' : String(error)),
      );
      results.push(outcome);
    }
    expect(results).toEqual([
      'network error',
      'network error',
      'network error',
      '200 real POST /licensing/actions/checkout',
      '200 real GET /authz/.jwt?ItemA',
      '200 real POST /authz/.jwt',
      '200 real GET /.well-known/jwks.json',
      '200 real POST /licensing/actions/checkout',
    ]);
  });

  it('can fail with a status and recover with a given response', async () => {
    server.use(
      ...mainFlaky(MAIN, {
        failures: 2,
        failure: 'unavailable',
        pass: () => new Response('header.payload.signature', { status: 200 }),
      }),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${MAIN}/authz/.jwt?ItemA`)).status);
    expect(statuses).toEqual([503, 503, 200, 200]);
  });

  it('rejects a bad failure count', () => {
    expect(() => mainFlaky(MAIN, { failures: -1 })).toThrow(/failures/);
    expect(() => mainFlaky(MAIN, { failures: 1.5 })).toThrow(TypeError);
  });
});

describe('mainDelay', () => {
  it('answers after the fixed delay (fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.use(...mainDelay(MAIN, { delayMs: 5_000, pass: () => new Response('late') }));
    let settled = false;
    const pending = fetch(`${MAIN}/authz/.jwt?ItemA`).then((response) => {
      settled = true;
      return response.text();
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toBe('late');
  });

  it('ends early when the request aborts', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.use(...mainDelay(MAIN, { delayMs: 60_000 }));
    const controller = new AbortController();
    const pending = fetch(`${MAIN}/authz/.jwt`, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
