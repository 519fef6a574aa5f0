import type * as JwsSigning from './jws-signing.js';

let loading: Promise<typeof JwsSigning> | undefined;

/**
 * The event client's signing code (jws-signing.ts), loaded with `import()` at first use (a lazy
 * chunk for bundlers, ADR 0020) and kept: an `import()` per batch costs a trip through the module loader
 * each time (about 0.28 ms under a loader hook such as tsx's). A failed load is not kept, so the
 * next call tries again.
 */
export function loadSigning(): Promise<typeof JwsSigning> {
  if (loading === undefined) {
    const started = import('./jws-signing.js');
    loading = started;
    started.catch(() => {
      if (loading === started) loading = undefined;
    });
  }
  return loading;
}
