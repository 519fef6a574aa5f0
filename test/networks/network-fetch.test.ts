import { closedPort } from '@test/helpers/mock-licensing.js';
import { recordGlobalFetch } from '@test/helpers/networks/global-fetch.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createDefaultFetch,
  detectNetworkRuntime,
} from '../../sdk/src/internal/platform/network-fetch.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('createDefaultFetch (the platform fence)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
  });

  it.each([
    ['a browser (no process)', () => vi.stubGlobal('process', undefined)],
    [
      'an Electron renderer or jsdom (a document)',
      () => vi.stubGlobal('document', { title: 'app' }),
    ],
  ])('is the global fetch, proxies and `tls` ignored, in %s', async (_name, hideNode) => {
    vi.stubEnv('https_proxy', 'http://127.0.0.1:9');
    hideNode();
    const fetchFn = createDefaultFetch({ proxy: 'http://127.0.0.1:9', ca: [CA] });
    const calls = recordGlobalFetch();
    expect((await fetchFn('https://licensing.example/x')).status).toBe(204);
    expect(calls).toEqual(['https://licensing.example/x']);
  });

  it('on Node, loads the Node fetch on the first request: it takes the proxy', async () => {
    const port = await closedPort();
    const calls = recordGlobalFetch();
    const fetchFn = createDefaultFetch({ proxy: `http://127.0.0.1:${port}`, ca: [] });
    const error = await fetchFn('https://licensing.example/x').catch((e: unknown) => e);
    expect(calls).toEqual([]);
    expect(error).toMatchObject({ name: 'ProxyRouteError', proxy: `http://127.0.0.1:${port}` });
    // Without a proxy, the same client's requests go to the global fetch.
    const direct = createDefaultFetch({ proxy: false, ca: [] });
    expect((await direct('https://licensing.example/y')).status).toBe(204);
    expect(calls).toEqual(['https://licensing.example/y']);
  });

  it('hands a request nothing applies to straight to the global fetch: same promise, no module load', async () => {
    vi.stubEnv('https_proxy', '');
    vi.stubEnv('HTTPS_PROXY', '');
    // Were the Node module loaded, this path would fail: nothing may try.
    vi.stubGlobal('__NODE_NETWORK_MODULE__', './no-such-module.js');
    const answer = Promise.resolve(new Response(null, { status: 204 }));
    vi.stubGlobal('fetch', () => answer);
    const fetchFn = createDefaultFetch({ proxy: undefined, ca: [CA] });
    expect(fetchFn('http://licensing.example/a')).toBe(answer);
    expect(createDefaultFetch({ proxy: false, ca: [] })('https://licensing.example/b')).toBe(
      answer,
    );
  });

  it('fails a proxied request, saying what to do, when the Node module cannot be loaded', async () => {
    vi.stubGlobal('__NODE_NETWORK_MODULE__', './no-such-module.js');
    const calls = recordGlobalFetch();
    vi.stubEnv('https_proxy', 'http://127.0.0.1:3128');
    const fetchFn = createDefaultFetch({ proxy: undefined, ca: [] });
    await expect(fetchFn('https://licensing.example/x')).rejects.toMatchObject({
      name: 'NetworkSetupError',
      message: expect.stringMatching(
        /network module .* on Node could not be loaded .*Keep @standby-licensing\/sdk \(and undici, on Node\) in node_modules, out of an app's bundle, or pass your own `fetch`/,
      ),
    });
    // Requests no proxy applies to still go out.
    expect((await fetchFn('http://licensing.example/y')).status).toBe(204);
    expect(calls).toEqual(['http://licensing.example/y']);
  });

  it('fails with a setup error, naming the runtime, when the network module cannot be loaded on Bun', async () => {
    vi.stubGlobal('__NODE_NETWORK_MODULE__', './no-such-module.js');
    recordGlobalFetch();
    const fetchFn = createDefaultFetch({ proxy: 'http://127.0.0.1:3128', ca: [] }, { name: 'bun' });
    await expect(fetchFn('https://licensing.example/x')).rejects.toMatchObject({
      name: 'NetworkSetupError',
      message: expect.stringMatching(
        /network module for proxies and `tls.ca` on Bun could not be loaded/,
      ),
    });
  });
});

describe('the runtime the fence sees', () => {
  it.each([
    ['Node', globalThis, 'node'],
    ['Bun', { process: { versions: { node: '24.3.0', bun: '1.4.5' }, env: {} }, Bun: {} }, 'bun'],
    ['Deno', { process: { versions: { node: '24.2.0' }, env: {} }, Deno: {} }, 'deno'],
    ['a browser', {}, 'web'],
    ['an Electron renderer', { process: { versions: { node: '20.11.0' } }, document: {} }, 'web'],
  ])('%s', (_name, scope, name) => {
    expect(detectNetworkRuntime(scope).name).toBe(name);
  });
});

describe('createDefaultFetch on Bun and Deno (their own fetch options)', () => {
  const PROXY = 'http://user:p%40ss@proxy.example:3128';
  afterEach(() => vi.unstubAllGlobals());

  /** The global fetch replaced by one that records each call's init. */
  function recordInits(): Array<RequestInit & Record<string, unknown>> {
    const inits: Array<RequestInit & Record<string, unknown>> = [];
    vi.stubGlobal('fetch', async (_input: unknown, init: RequestInit & Record<string, unknown>) => {
      inits.push(init);
      return new Response(null, { status: 204 });
    });
    return inits;
  }

  it("passes nothing more when neither `proxy` nor `tls` is set: Bun's and Deno's fetch read the proxy variables", async () => {
    const inits = recordInits();
    const createHttpClient = vi.fn();
    for (const runtime of [
      { name: 'bun' },
      { name: 'deno', deno: { createHttpClient } },
    ] as const) {
      await createDefaultFetch({ proxy: undefined, ca: [] }, runtime)('https://l.example/', {
        method: 'GET',
      });
    }
    expect(inits).toEqual([{ method: 'GET' }, { method: 'GET' }]);
    expect(createHttpClient).not.toHaveBeenCalled();
  });

  it("gives Bun's fetch the proxy (credentials kept), `proxy: false`, and the CA after Bun's own roots", async () => {
    const inits = recordInits();
    await createDefaultFetch({ proxy: PROXY, ca: [CA] }, { name: 'bun' })('https://l.example/', {
      method: 'POST',
    });
    await createDefaultFetch({ proxy: false, ca: [] }, { name: 'bun' })('https://l.example/');
    expect(inits[0]).toMatchObject({ method: 'POST', proxy: PROXY });
    const ca = (inits[0]!.tls as { ca: string[] }).ca;
    // A `ca` replaces the runtime's roots, so they come first (Node's list here).
    expect(ca.length).toBeGreaterThan(100);
    expect(ca.at(-1)).toBe(CA);
    expect(inits[1]).toEqual({ proxy: false });
  });

  it("gives Deno's fetch one client made with the proxy and the CA", async () => {
    const inits = recordInits();
    const client = { close() {} };
    const createHttpClient = vi.fn(() => client);
    const fetchFn = createDefaultFetch(
      { proxy: 'proxy.example', ca: [CA] },
      { name: 'deno', deno: { createHttpClient } },
    );
    await fetchFn('https://l.example/a');
    await fetchFn('https://l.example/b');
    expect(createHttpClient.mock.calls).toEqual([
      [{ proxy: { url: 'http://proxy.example:1080' }, caCerts: [CA] }],
    ]);
    expect(inits.map((init) => init.client)).toEqual([client, client]);
    createDefaultFetch(
      { proxy: PROXY, ca: [] },
      { name: 'deno', deno: { createHttpClient } },
    )('https://l.example/c');
    await vi.waitFor(() => expect(createHttpClient).toHaveBeenCalledTimes(2));
    expect(createHttpClient.mock.calls[1]).toEqual([
      {
        proxy: {
          url: 'http://proxy.example:3128',
          basicAuth: { username: 'user', password: 'p@ss' },
        },
      },
    ]);
  });

  it('refuses `proxy: false` on Deno, naming the runtime: its fetch cannot ignore the proxy variables', () => {
    expect(() =>
      createDefaultFetch(
        { proxy: false, ca: [] },
        { name: 'deno', deno: { createHttpClient: vi.fn() } },
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        option: 'proxy',
        message: expect.stringContaining('Deno'),
      }),
    );
  });
});
