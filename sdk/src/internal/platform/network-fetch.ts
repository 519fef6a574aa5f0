// Platform fence: the SDK's default `fetch`. On Node (Electron's main process included) it is
// node-network.ts, which honours HTTP proxies and extra trust anchors through undici; that
// module is loaded on the first request by an `import()` of a run-time string, which bundlers
// leave alone, so a browser bundle never contains it or undici (bench row 6). Bun and Deno read
// the proxy variables themselves; the same module sets their own fetch options for the `proxy`
// and `tls` options. Everywhere else (browsers, workers, Electron renderers) it is the runtime's
// own fetch, looked up at call time so msw and instrumentation that patch it later still apply.
import { InvalidOptionError } from '../../errors.js';
import { NetworkSetupError } from '../network-setup-error.js';
import type { DenoNetwork, NetworkSettings } from './node-network.js';

export type { NetworkSettings } from './node-network.js';

/**
 * Where node-network.ts is, from the module that imports it: set by the CommonJS build
 * (sdk/tsup.config.ts), whose one file loads the ES module beside the others in dist/.
 */
declare const __NODE_NETWORK_MODULE__: string | undefined;

interface NodeProcess {
  versions: { node?: string; bun?: string };
  env: Record<string, string | undefined>;
}

/**
 * Where a client runs, as far as its fetch is concerned: Node (its `process`), Bun, Deno (its
 * namespace), or a browser-like runtime (`web`: browsers, workers, Electron renderers, jsdom).
 */
export type NetworkRuntime =
  | { name: 'node'; process: NodeProcess }
  | { name: 'bun' }
  | { name: 'deno'; deno: DenoNetwork }
  | { name: 'web' };

/** The runtime of `scope` (default `globalThis`). */
export function detectNetworkRuntime(scope: object = globalThis): NetworkRuntime {
  const {
    process: proc,
    document,
    Deno,
  } = scope as {
    process?: NodeProcess;
    document?: unknown;
    Deno?: DenoNetwork;
  };
  if (Deno !== undefined) return { name: 'deno', deno: Deno };
  if (proc?.versions?.bun !== undefined) return { name: 'bun' };
  // An Electron renderer (and jsdom) has a `document` and Chromium's own fetch and proxies.
  if (typeof proc?.versions?.node !== 'string' || document !== undefined) return { name: 'web' };
  return { name: 'node', process: proc };
}

/**
 * Whether a request may need node-network.ts: a `proxy` URL, `tls.ca` for an https URL, or a
 * proxy variable for its scheme in the environment (node-network.ts then reads `NO_PROXY`).
 * Every other request goes straight to the global fetch, as it did before proxies were
 * supported: no module to load, not even a microtask more.
 */
function mayNeedNodeNetwork(
  node: NodeProcess,
  settings: NetworkSettings,
  input: RequestInfo | URL,
): boolean {
  if (typeof settings.proxy === 'string') return true;
  const scheme = String(input instanceof Request ? input.url : input).split(':')[0];
  if (settings.ca.length > 0 && scheme === 'https') return true;
  if (settings.proxy === false) return false;
  const variable = `${scheme}_proxy`;
  return !!(node.env[variable] ?? node.env[variable.toUpperCase()]);
}

/**
 * The SDK's default `fetch` for one client: on Node, node-network.ts's for the requests a proxy
 * or `tls.ca` may apply to (loaded on the first of them); on Bun and Deno with a `proxy` or
 * `tls.ca`, their own fetch with those set (the same module); the global `fetch`, looked up at
 * call time, for every other request and everywhere else (browsers ignore `proxy` and `tls`).
 *
 * @throws InvalidOptionError for `proxy: false` on Deno, whose fetch cannot ignore the proxy
 *   variables.
 */
export function createDefaultFetch(
  settings: NetworkSettings,
  runtime: NetworkRuntime = detectNetworkRuntime(),
): typeof fetch {
  const plain: typeof fetch = (input, init) => globalThis.fetch(input, init);
  if (runtime.name === 'web') return plain;
  if (runtime.name === 'deno' && settings.proxy === false) {
    throw new InvalidOptionError(
      'proxy',
      "`proxy: false` cannot be honoured on Deno: its fetch reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY itself and cannot be told to ignore them. Unset them, or list the services' hosts in NO_PROXY",
    );
  }
  if (runtime.name !== 'node' && settings.proxy === undefined && settings.ca.length === 0) {
    return plain;
  }
  let loading: Promise<typeof fetch> | undefined;
  const load = async (): Promise<typeof fetch> => {
    const specifier =
      typeof __NODE_NETWORK_MODULE__ === 'string' ? __NODE_NETWORK_MODULE__ : './node-network.js';
    try {
      // The comments keep webpack and Vite off it; esbuild and Rollup leave a run-time string.
      const module = (await import(
        /* webpackIgnore: true */ /* @vite-ignore */ specifier
      )) as typeof import('./node-network.js');
      if (runtime.name === 'bun') return module.createBunFetch(settings);
      if (runtime.name === 'deno') return module.createDenoFetch(settings, runtime.deno);
      return module.createNodeFetch(settings);
    } catch (cause) {
      // An app that bundled the SDK into one file, Jest without ES modules: a setup to fix, not
      // an outage (no failover; transport/classify-outcome.ts), saying what to do.
      const problem = new NetworkSetupError(
        `The SDK's network module for proxies and \`tls.ca\` on ${runtime.name === 'node' ? 'Node' : runtime.name === 'bun' ? 'Bun' : 'Deno'} could not be loaded (${String(cause)}). Keep @standby-licensing/sdk (and undici, on Node) in node_modules, out of an app's bundle, or pass your own \`fetch\``,
        { cause },
      );
      return () => Promise.reject(problem);
    }
  };
  return (input, init) => {
    if (runtime.name === 'node' && !mayNeedNodeNetwork(runtime.process, settings, input)) {
      return globalThis.fetch(input, init);
    }
    if (!loading) loading = load();
    return loading.then((nodeFetch) => nodeFetch(input, init));
  };
}
