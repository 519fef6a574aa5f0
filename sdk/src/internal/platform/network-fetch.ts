// Platform fence: the SDK's default `fetch`. On Node (Electron's main process included) it is
// node-network.ts, which honours HTTP proxies and extra trust anchors through undici; that
// module is loaded on the first request by an `import()` of a run-time string, which bundlers
// leave alone, so a browser bundle never contains it or undici (bench row 6). Everywhere else
// (browsers, Deno and Bun, whose fetch reads the proxy variables itself, workers) it is the
// runtime's own fetch, looked up at call time so msw and instrumentation that patch it later
// still apply.
import type { NetworkSettings } from './node-network.js';

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

/** Node's `process`, when this is Node (not a browser, Deno or Bun, which own their proxies). */
function nodeProcess(): NodeProcess | undefined {
  const scope = globalThis as { process?: NodeProcess; document?: unknown; Deno?: unknown };
  const proc = scope.process;
  if (typeof proc?.versions?.node !== 'string' || proc.versions.bun !== undefined) return undefined;
  // An Electron renderer (and jsdom) has a `document` and Chromium's own fetch and proxies.
  if (scope.Deno !== undefined || scope.document !== undefined) return undefined;
  return proc;
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
 * or `tls.ca` may apply to (loaded on the first of them); the global `fetch`, looked up at call
 * time, for every other request and everywhere else.
 */
export function createDefaultFetch(settings: NetworkSettings): typeof fetch {
  const node = nodeProcess();
  if (!node) return (input, init) => globalThis.fetch(input, init);
  let loading: Promise<typeof fetch> | undefined;
  const load = async (): Promise<typeof fetch> => {
    const specifier =
      typeof __NODE_NETWORK_MODULE__ === 'string' ? __NODE_NETWORK_MODULE__ : './node-network.js';
    try {
      // The comments keep webpack and Vite off it; esbuild and Rollup leave a run-time string.
      const module = (await import(
        /* webpackIgnore: true */ /* @vite-ignore */ specifier
      )) as typeof import('./node-network.js');
      return module.createNodeFetch(settings);
    } catch (cause) {
      // An app that bundled the SDK into one file, Jest without ES modules: say what to do.
      // (No `cause`: the message is what an error report shows, innermost first.)
      const problem = `the SDK's Node network module (for proxies and \`tls.ca\`) could not be loaded (${String(cause)}); keep @standby-licensing/sdk and undici in node_modules, or pass your own \`fetch\``;
      return () => Promise.reject(new Error(problem));
    }
  };
  return (input, init) => {
    if (!mayNeedNodeNetwork(node, settings, input)) return globalThis.fetch(input, init);
    if (!loading) loading = load();
    return loading.then((nodeFetch) => nodeFetch(input, init));
  };
}
