import { closedPort } from '@test/helpers/mock-licensing.js';
import { recordGlobalFetch } from '@test/helpers/networks/global-fetch.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDefaultFetch } from './network-fetch.js';

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
    [
      'Bun (its fetch reads the proxy variables itself)',
      () =>
        vi.stubGlobal('process', {
          ...process,
          versions: { ...process.versions, bun: '1.2.0' },
        }),
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
    await expect(fetchFn('https://licensing.example/x')).rejects.toThrow(
      /Node network module .* could not be loaded .*keep @standby-licensing\/sdk and undici in node_modules, or pass your own `fetch`/,
    );
    // Requests no proxy applies to still go out.
    expect((await fetchFn('http://licensing.example/y')).status).toBe(204);
    expect(calls).toEqual(['http://licensing.example/y']);
  });
});
