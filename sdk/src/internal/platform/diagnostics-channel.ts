// Platform fence: `node:diagnostics_channel` where the runtime has it (Node, Electron's main
// process, Bun, Deno), found at run time so that no bundler puts it, or a shim of it, into a
// browser bundle (test/networks/browser-bundle.test.ts). `process.getBuiltinModule` hands it over
// synchronously (Node 20.16+, Bun, Deno); Node 20.11 to 20.15 (Electron 30 and 31) have no such
// call, so there it comes from an `import()` of a run-time string, as network-fetch.ts loads the
// Node network module, a few microtasks later. Browsers and workers have no `process`: nothing.

/** A channel of `node:diagnostics_channel`, as the SDK uses it. */
export interface DiagnosticsChannel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

/** A `TracingChannel`, as the SDK uses it. */
export interface DiagnosticsTracingChannel {
  /** Missing on Node before 20.13 and on Bun: ask its five channels then. */
  readonly hasSubscribers?: boolean;
  readonly start: DiagnosticsChannel;
  readonly end: DiagnosticsChannel;
  readonly asyncStart: DiagnosticsChannel;
  readonly asyncEnd: DiagnosticsChannel;
  readonly error: DiagnosticsChannel;
  tracePromise<T>(fn: () => Promise<T>, context: object): Promise<T>;
}

/** The part of `node:diagnostics_channel` the SDK uses. */
export interface DiagnosticsChannels {
  channel(name: string): DiagnosticsChannel;
  tracingChannel(name: string): DiagnosticsTracingChannel;
}

interface RuntimeProcess {
  versions?: { node?: unknown };
  getBuiltinModule?: (id: string) => unknown;
}

/**
 * The runtime's `node:diagnostics_channel`: the module itself, a promise of it (Node 20.11 to
 * 20.15: `undefined` if even that import fails), or `undefined` where there is none.
 *
 * @param scope Where to look for `process`; default `globalThis` (a test passes another).
 * @example
 * const found = findDiagnosticsChannels();
 * const channels = found instanceof Promise ? await found : found;
 * channels?.channel('standby-licensing:failover').publish(event);
 */
export function findDiagnosticsChannels(
  scope: { process?: RuntimeProcess } = globalThis as { process?: RuntimeProcess },
): DiagnosticsChannels | Promise<DiagnosticsChannels | undefined> | undefined {
  const runtime = scope.process;
  // Bun and Deno report a Node version too; a bundler's `process` shim reports none.
  if (typeof runtime?.versions?.node !== 'string') return undefined;
  const specifier = 'node:diagnostics_channel';
  if (runtime.getBuiltinModule) {
    return runtime.getBuiltinModule(specifier) as DiagnosticsChannels | undefined;
  }
  // The comments keep webpack and Vite off it; esbuild and Rollup leave a run-time string.
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier).then(
    (module: { default?: DiagnosticsChannels } & DiagnosticsChannels) => module.default ?? module,
    () => undefined,
  );
}
