import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextTask } from './next-task.js';

afterEach(() => vi.unstubAllGlobals());

describe('nextTask', () => {
  it('resolves after the current task and all its microtasks', async () => {
    const order: string[] = [];
    const waited = nextTask().then(() => order.push('next task'));
    let chain = Promise.resolve();
    for (let i = 0; i < 50; i++) chain = chain.then(() => undefined);
    chain.then(() => order.push('microtasks done'));
    await waited;
    expect(order).toEqual(['microtasks done', 'next task']);
  });

  it('uses setTimeout(0) where the runtime has no setImmediate (browsers)', async () => {
    vi.stubGlobal('setImmediate', undefined);
    const timeout = vi.spyOn(globalThis, 'setTimeout');
    await nextTask();
    expect(timeout).toHaveBeenCalledWith(expect.any(Function), 0);
  });
});
