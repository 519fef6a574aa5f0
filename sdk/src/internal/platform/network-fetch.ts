// Platform fence: the SDK's default `fetch`. On Node (Electron's main process included) it
// honours HTTP proxies (the environment as curl reads it, or the `proxy` option) and extra trust
// anchors (`tls.ca`) through undici's ProxyAgent and Agent, since Node's own fetch does neither.
// undici and Node's modules are loaded on first use by an `import()` of a run-time string, which
// bundlers leave alone: a browser bundle never contains them (bench row 6). Everywhere else
// (browsers, Deno and Bun, whose fetch reads the proxy variables itself, workers) and for every
// request that needs neither, it is the runtime's own fetch, looked up at call time so msw and
// instrumentation that patch it later still apply.
import type * as NodeFs from 'node:fs';
import type * as NodeTls from 'node:tls';
import type * as Undici from 'undici';
import { parseProxyUrl, proxyFromEnvironment } from '../proxy-environment.js';
import { ProxyRouteError } from '../proxy-route-error.js';

/** What the default fetch applies on Node. */
export interface NetworkSettings {
  /** Undefined: the environment decides; `false`: no proxy; a URL: that proxy for every request. */
  proxy: string | false | undefined;
  /** Trust anchors (PEM) added to Node's own for HTTPS; empty: Node's own only. */
  ca: readonly string[];
}

interface NodeProcess {
  versions: { node?: string; bun?: string };
  env: Record<string, string | undefined>;
  getBuiltinModule?: (id: string) => unknown;
}

/** Node's `process`, when this is Node (not a browser, Deno or Bun, which own their proxies). */
function nodeProcess(): NodeProcess | undefined {
  const scope = globalThis as { process?: NodeProcess; document?: unknown; Deno?: unknown };
  const proc = scope.process;
  if (typeof proc?.versions?.node !== 'string' || proc.versions.bun !== undefined) return undefined;
  // An Electron renderer (and jsdom) has a `document` and Chromium's own fetch and proxies.
  if (scope.Deno !== undefined || scope.document !== undefined) return undefined;
  return proc;
}

/** `import(id)` resolved by Node at run time; the comments keep webpack and Vite off it. */
function importAtRunTime<T>(id: string): Promise<T> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ id) as Promise<T>;
}

async function builtin<T>(node: NodeProcess, id: string): Promise<T> {
  // process.getBuiltinModule exists from Node 20.16; before that, import() finds the builtin.
  return (node.getBuiltinModule?.(id) as T | undefined) ?? importAtRunTime<T>(id);
}

/** undici's exports, whether `import()` gave the CommonJS module as `default` or by name. */
async function loadUndici(): Promise<typeof Undici> {
  const loaded = await importAtRunTime<typeof Undici & { default?: typeof Undici }>('undici');
  return loaded.ProxyAgent ? loaded : (loaded.default as typeof Undici);
}

/**
 * Node's own trust anchors plus `extra`: `ca` given to a TLS connection replaces Node's, so they
 * are listed again, with the `NODE_EXTRA_CA_CERTS` file (Node reads it only for its defaults).
 */
async function trustAnchors(node: NodeProcess, extra: readonly string[]): Promise<string[]> {
  const tls = await builtin<typeof NodeTls & { getCACertificates?: (type: string) => string[] }>(
    node,
    'node:tls',
  );
  // Node 22.15 / 23.10 and later list their defaults, NODE_EXTRA_CA_CERTS included.
  if (tls.getCACertificates) return [...tls.getCACertificates('default'), ...extra];
  const anchors = [...tls.rootCertificates];
  const file = node.env.NODE_EXTRA_CA_CERTS;
  if (file) {
    try {
      const fs = await builtin<typeof NodeFs>(node, 'node:fs');
      anchors.push(fs.readFileSync(file, 'utf8'));
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
 * The SDK's default `fetch` for one client. On Node, a request that a proxy or extra trust
 * anchors apply to goes through undici (one dispatcher per proxy, kept for the client's life);
 * a failure on a proxied request is thrown as a {@link ProxyRouteError} around undici's error,
 * the caller's abort as it is. Other requests, and every request elsewhere, use the global fetch.
 */
export function createDefaultFetch(settings: NetworkSettings): typeof fetch {
  const plain: typeof fetch = (input, init) => globalThis.fetch(input, init);
  const found = nodeProcess();
  if (!found) return plain;
  const node = found;
  let library: Promise<typeof Undici> | undefined;
  let anchors: Promise<string[]> | undefined;
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
      if (!anchors && settings.ca.length > 0) anchors = trustAnchors(node, settings.ca);
      const ca = await anchors;
      const tls = ca === undefined ? {} : { ca };
      if (proxy === undefined) {
        dispatcher = new undici.Agent({ connect: tls });
      } else {
        const { origin, authorization } = parseProxyUrl(proxy);
        dispatcher = new undici.ProxyAgent({
          uri: origin,
          ...(authorization === undefined ? {} : { token: authorization }),
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
        ? proxyFromEnvironment(url, node.env)
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
      const problem = new Error(
        `undici, which the SDK needs on Node for ${proxy === undefined ? '`tls.ca`' : 'proxies'}, could not be loaded (${error instanceof Error ? error.message : String(error)}). Install undici 6 beside the SDK, or pass your own \`fetch\``,
        { cause: error },
      );
      if (proxy === undefined) throw problem;
      throw new ProxyRouteError(label, { cause: problem, unusable: true });
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
