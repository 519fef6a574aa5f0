import { closedPort } from '@test/helpers/mock-licensing.js';
import { recordGlobalFetch } from '@test/helpers/networks/global-fetch.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createNodeFetch,
  type NetworkSettings,
} from '../../sdk/src/internal/platform/node-network.js';
import { ProxyRouteError } from '../../sdk/src/internal/proxy-route-error.js';

const DIRECT: NetworkSettings = { proxy: undefined, ca: [] };
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('createNodeFetch (Node only)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
  });

  it('uses the global fetch, looked up at call time, when no proxy or trust anchor applies', async () => {
    vi.stubEnv('HTTPS_PROXY', '');
    vi.stubEnv('https_proxy', '');
    const fetchFn = createNodeFetch(DIRECT);
    const calls = recordGlobalFetch();
    expect((await fetchFn('https://licensing.example/main')).status).toBe(204);
    expect(calls).toEqual(['https://licensing.example/main']);
  });

  it('leaves hosts in NO_PROXY, `proxy: false` and http URLs with only `ca` to the global fetch', async () => {
    const calls = recordGlobalFetch();
    vi.stubEnv('https_proxy', 'http://127.0.0.1:9');
    vi.stubEnv('no_proxy', 'licensing.example');
    await createNodeFetch(DIRECT)('https://licensing.example/a');
    await createNodeFetch({ proxy: false, ca: [] })('https://other.example/b');
    await createNodeFetch({ proxy: false, ca: [CA] })('http://other.example/c');
    expect(calls).toEqual([
      'https://licensing.example/a',
      'https://other.example/b',
      'http://other.example/c',
    ]);
  });

  it('sends a request for a proxied URL to the proxy: one that is down fails as a ProxyRouteError', async () => {
    const port = await closedPort();
    const calls = recordGlobalFetch();
    vi.stubEnv('https_proxy', `http://user:secret@127.0.0.1:${port}`);
    const error = await createNodeFetch(DIRECT)('https://licensing.example/x').catch(
      (e: unknown) => e,
    );
    expect(calls).toEqual([]);
    expect(error).toBeInstanceOf(ProxyRouteError);
    const failure = error as ProxyRouteError;
    // The password never appears: the proxy is named by its origin.
    expect(failure.proxy).toBe(`http://127.0.0.1:${port}`);
    expect(failure.unusable).toBe(false);
    expect(JSON.stringify(failure.cause, Object.getOwnPropertyNames(failure.cause))).toContain(
      'ECONNREFUSED',
    );
  });

  it('reports an unusable proxy variable without its password', async () => {
    vi.stubEnv('https_proxy', 'socks5://user:secret@127.0.0.1:1080');
    const error = await createNodeFetch(DIRECT)('https://licensing.example/x').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProxyRouteError);
    expect(error).toMatchObject({ unusable: true, proxy: 'socks5://127.0.0.1:1080' });
    expect(String((error as Error).cause)).toMatch(/socks5: proxies are not supported/);
  });

  it('rejects with the caller’s abort, not a proxy failure', async () => {
    const port = await closedPort();
    vi.stubEnv('https_proxy', `http://127.0.0.1:${port}`);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const error = await createNodeFetch(DIRECT)('https://licensing.example/x', {
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ProxyRouteError);
  });
});
