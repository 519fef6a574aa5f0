import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextTask } from './next-task.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** Resolves with the order of `nextTask` against 50 chained microtasks. */
async function orderAgainstMicrotasks(): Promise<string[]> {
  const order: string[] = [];
  const waited = nextTask().then(() => order.push('next task'));
  let chain = Promise.resolve();
  for (let i = 0; i < 50; i++) chain = chain.then(() => undefined);
  chain.then(() => order.push('microtasks done'));
  await waited;
  return order;
}

describe('nextTask', () => {
  it('resolves after the current task and all its microtasks (setImmediate on Node)', async () => {
    const immediate = vi.spyOn(globalThis, 'setImmediate');
    expect(await orderAgainstMicrotasks()).toEqual(['microtasks done', 'next task']);
    expect(immediate).toHaveBeenCalledTimes(1);
  });

  it('uses a MessageChannel where there is no setImmediate (browsers: no background throttling)', async () => {
    vi.stubGlobal('setImmediate', undefined);
    const timeout = vi.spyOn(globalThis, 'setTimeout');
    const post = vi.spyOn(MessagePort.prototype, 'postMessage');
    expect(await orderAgainstMicrotasks()).toEqual(['microtasks done', 'next task']);
    expect(post).toHaveBeenCalledTimes(1);
    expect(timeout).not.toHaveBeenCalled();
  });

  it('falls back to setTimeout(0) where neither exists', async () => {
    vi.stubGlobal('setImmediate', undefined);
    vi.stubGlobal('MessageChannel', undefined);
    const timeout = vi.spyOn(globalThis, 'setTimeout');
    expect(await orderAgainstMicrotasks()).toEqual(['microtasks done', 'next task']);
    expect(timeout).toHaveBeenCalledWith(expect.any(Function), 0);
  });
});
