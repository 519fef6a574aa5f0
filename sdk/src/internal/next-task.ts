type Schedule = (callback: () => void) => void;

const runtime = globalThis as {
  setImmediate?: (callback: () => void) => unknown;
  MessageChannel?: typeof MessageChannel;
};

/**
 * Resolves in a later task of the event loop, after the current task and its microtasks. Node and
 * Electron's main process: `setImmediate` (no 1 ms floor). Browsers and workers: a
 * `MessageChannel` message, which, unlike `setTimeout`, background tabs do not throttle to one
 * per second; `setTimeout(0)` where neither exists. Looked up at call time, so fakes see it.
 */
export function nextTask(): Promise<void> {
  return new Promise<void>((resolve) => scheduler()(resolve));
}

function scheduler(): Schedule {
  const immediate = runtime.setImmediate;
  if (typeof immediate === 'function') return (callback) => immediate(callback);
  const Channel = runtime.MessageChannel;
  if (typeof Channel === 'function') {
    return (callback) => {
      const channel = new Channel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        callback();
      };
      channel.port2.postMessage(undefined);
    };
  }
  return (callback) => setTimeout(callback, 0);
}
