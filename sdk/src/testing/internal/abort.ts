// Abort-aware waits for the hang and delay handlers. Private to the testing kit.

/** Resolves once `signal` aborts (at once if it already has). Never rejects. */
export function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Waits `ms` milliseconds with `setTimeout` (so vitest fake timers can advance it) or until
 * `signal` aborts. Resolves `true` when the time ran out, `false` when aborted first.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
