import { option } from '../internal/validate-option.js';

/**
 * The `fetch` to use, always invoked as a plain function looked up at call time: a browser's
 * `fetch` called as a method of another object throws "Illegal invocation", and a `fetch`
 * patched after the client was created (msw, instrumentation) must still be used.
 */
export function resolveFetch(name: string, value: unknown): typeof fetch {
  if (value === undefined) return (input, init) => globalThis.fetch(input, init);
  option.requireFn(name, value);
  const given = value as typeof fetch;
  return (input, init) => given(input, init);
}
