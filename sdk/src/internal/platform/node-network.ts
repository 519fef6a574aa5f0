// The SDK's fetch on Node (Electron's main process included): HTTP proxies, from the
// environment as curl reads it or from the `proxy` option, and extra trust anchors (`tls.ca`),
// through undici's ProxyAgent and Agent, since Node's own fetch does neither. Bun's and Deno's
// fetch read the proxy variables themselves; for the `proxy` and `tls` options, their own fetch
// options are set here (createBunFetch, createDenoFetch). Server runtimes only: the fence
// (network-fetch.ts) loads this module with an `import()` of a run-time string, so no bundler
// ever follows it into a browser bundle; undici itself is loaded on the first request that
// needs it.
import { readFileSync } from 'node:fs';
import * as nodeTls from 'node:tls';
import type * as Undici from 'undici';
import { messageOf } from '../message-of.js';
import { NetworkSetupError } from '../network-setup-error.js';
import { proxyFromEnvironment } from '../proxy-environment.js';
import { ProxyRouteError } from '../proxy-route-error.js';
import { parseProxyUrl } from '../proxy-url.js';

/** What the default fetch applies on Node. */
export interface NetworkSettings {
  /** Undefined: the environment decides; `false`: no proxy; a URL: that proxy for every request. */
  proxy: string | false | undefined;
  /** Trust anchors (PEM) added to Node's own for HTTPS; empty: Node's own only. */
  ca: readonly string[];
}

/** undici's exports, whether `import()` gave the CommonJS module as `default` or by name. */
async function loadUndici(): Promise<typeof Undici> {
  const loaded = (await import('undici')) as typeof Undici & { default?: typeof Undici };
  return loaded.ProxyAgent ? loaded : (loaded.default as typeof Undici);
}

/**
 * Node's own trust anchors plus `extra`: `ca` given to a TLS connection replaces Node's, so they
 * are listed again, with the `NODE_EXTRA_CA_CERTS` file (Node reads it only for its defaults).
 */
function trustAnchors(extra: readonly string[]): string[] {
  const tls = nodeTls as typeof nodeTls & { getCACertificates?: (type: string) => string[] };
  // Node 22.15 / 23.10 and later list their defaults, NODE_EXTRA_CA_CERTS included.
  if (tls.getCACertificates) return [...tls.getCACertificates('default'), ...extra];
  const anchors = [...tls.rootCertificates];
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (file) {
    try {
      anchors.push(readFileSync(file, 'utf8'));
    } catch {
      // Node warned about the unreadable file at start-up and goes on without it; so do we.
    }
  }
  return [...anchors, ...extra];
}

/** The status of a proxy's refusal in one of undici 6's errors (CONNECT answered, or 407). */
function refusalStatus(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Object; depth++) {
    const message = (current as { message?: unknown }).message;
    const match =
      typeof message === 'string'
        ? /^Proxy (?:response|Authentication Required) \((\d{3})\)/.exec(message)
        : null;
    if (match) return Number(match[1]);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function toUrl(input: string | URL): URL | undefined {
  try {
    return new URL(input);
  } catch {
    return undefined;
  }
}

/**
 * The fetch of one client on Node. A request that a proxy or extra trust anchors apply to goes
 * through undici (one dispatcher per proxy, kept for the client's life); a failure on a proxied
 * request is thrown as a {@link ProxyRouteError} around undici's error, the caller's abort as it
 * is. Every other request goes to the global fetch, looked up at call time.
 */
export function createNodeFetch(settings: NetworkSettings): typeof fetch {
  const plain: typeof fetch = (input, init) => globalThis.fetch(input, init);
  let library: Promise<typeof Undici> | undefined;
  let anchors: string[] | undefined;
  const dispatchers = new Map<string, Undici.Dispatcher>();

  /** undici and the dispatcher for `proxy` (undefined: direct), made once per proxy. */
  async function load(proxy: string | undefined) {
    if (!library) {
      library = loadUndici();
      // A failed load is not kept: the next request tries again.
      library.catch(() => {
        library = undefined;
      });
    }
    const undici = await library;
    const key = proxy ?? '';
    let dispatcher = dispatchers.get(key);
    if (!dispatcher) {
      if (!anchors && settings.ca.length > 0) anchors = trustAnchors(settings.ca);
      const tls = anchors === undefined ? {} : { ca: anchors };
      if (proxy === undefined) {
        dispatcher = new undici.Agent({ connect: tls });
      } else {
        const { origin, credentials } = parseProxyUrl(proxy);
        dispatcher = new undici.ProxyAgent({
          uri: origin,
          ...(credentials === undefined
            ? {}
            : { token: `Basic ${Buffer.from(credentials).toString('base64')}` }),
          // http targets through an http proxy are forwarded as they are (curl does the same);
          // https targets always go through a CONNECT tunnel.
          proxyTunnel: false,
          requestTls: tls,
          proxyTls: tls,
        });
      }
      dispatchers.set(key, dispatcher);
    }
    return { undici, dispatcher };
  }

  return async (input, init) => {
    const url = typeof input === 'string' || input instanceof URL ? toUrl(input) : undefined;
    if (!url) return plain(input, init);
    const proxy =
      settings.proxy === undefined
        ? proxyFromEnvironment(url, process.env)
        : settings.proxy === false
          ? undefined
          : settings.proxy;
    if (proxy === undefined && (settings.ca.length === 0 || url.protocol !== 'https:')) {
      return plain(input, init);
    }
    let label = '';
    if (proxy !== undefined) {
      try {
        label = parseProxyUrl(proxy).origin;
      } catch (error) {
        // An unusable HTTPS_PROXY / HTTP_PROXY (the option was checked when the client was made).
        const shown = proxy.replace(/\/\/[^@/]*@/, '//');
        throw new ProxyRouteError(shown, { cause: error, unusable: true });
      }
    }
    let loaded: Awaited<ReturnType<typeof load>>;
    try {
      loaded = await load(proxy);
    } catch (error) {
      // A setup to fix, not the proxy's fault nor an outage: no failover.
      throw new NetworkSetupError(
        `undici, which the SDK needs on Node for ${proxy === undefined ? '`tls.ca`' : 'proxies'}, could not be loaded (${messageOf(error)}). Install undici 6 beside the SDK, or pass your own \`fetch\``,
        { cause: error },
      );
    }
    try {
      const response = await loaded.undici.fetch(url.href, {
        ...(init as Undici.RequestInit),
        dispatcher: loaded.dispatcher,
      });
      return response as unknown as Response;
    } catch (error) {
      if (init?.signal?.aborted || proxy === undefined) throw error;
      throw new ProxyRouteError(label, { cause: error, status: refusalStatus(error) });
    }
  };
}

/** A proxy URL with its credentials split out, as Bun and Deno take them. */
function proxyParts(proxy: string) {
  const { origin, credentials } = parseProxyUrl(proxy);
  const colon = credentials?.indexOf(':') ?? -1;
  return {
    origin,
    username: credentials?.slice(0, colon),
    password: credentials?.slice(colon + 1),
  };
}

/**
 * The fetch of one client on Bun: its own, with the `proxy` option as Bun's `proxy` (`false`
 * too: Bun then ignores the proxy variables) and `tls.ca` as Bun's `tls.ca` after Bun's own
 * roots (Bun's `ca` replaces them, as Node's does; checked on Bun 1.4.5).
 */
export function createBunFetch(settings: NetworkSettings): typeof fetch {
  const extra: Record<string, unknown> = {};
  if (typeof settings.proxy === 'string') {
    const { origin, username, password } = proxyParts(settings.proxy);
    const [scheme, host] = origin.split('//');
    extra.proxy =
      username === undefined
        ? origin
        : `${scheme}//${encodeURIComponent(username)}:${encodeURIComponent(password!)}@${host}`;
  } else if (settings.proxy === false) {
    extra.proxy = false;
  }
  if (settings.ca.length > 0) extra.tls = { ca: trustAnchors(settings.ca) };
  return (input, init) => globalThis.fetch(input, { ...init, ...extra });
}

/** The part of Deno's namespace the SDK uses. */
export interface DenoNetwork {
  createHttpClient(options: {
    proxy?: { url: string; basicAuth?: { username: string; password: string } };
    caCerts?: string[];
  }): unknown;
}

/**
 * The fetch of one client on Deno: its own, through one `Deno.createHttpClient` made on the
 * first request with the `proxy` option and `tls.ca` (Deno adds `caCerts` to its own roots). Deno
 * cannot be told to ignore the proxy variables (`proxy: false`): the fence refuses that.
 */
export function createDenoFetch(settings: NetworkSettings, deno: DenoNetwork): typeof fetch {
  let client: unknown;
  const make = () => {
    const options: Parameters<DenoNetwork['createHttpClient']>[0] = {};
    if (typeof settings.proxy === 'string') {
      const { origin, username, password } = proxyParts(settings.proxy);
      options.proxy = {
        url: origin,
        ...(username === undefined ? {} : { basicAuth: { username, password: password! } }),
      };
    }
    if (settings.ca.length > 0) options.caCerts = [...settings.ca];
    return deno.createHttpClient(options);
  };
  return (input, init) => {
    client ??= make();
    return globalThis.fetch(input, { ...init, client } as RequestInit);
  };
}
