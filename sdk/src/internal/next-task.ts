/**
 * Resolves in a later task of the event loop, after the current task and its microtasks: with
 * `setImmediate` where the runtime has it (Node, Electron's main process; no 1 ms floor), else
 * `setTimeout(0)` (browsers, workers). Looked up at call time, so fake timers see it.
 */
export function nextTask(): Promise<void> {
  return new Promise<void>((resolve) => {
    const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown })
      .setImmediate;
    if (typeof immediate === 'function') immediate(resolve);
    else setTimeout(resolve, 0);
  });
}
