import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRunQueueWaitMs } from './run-queue-wait.js';

describe('readRunQueueWaitMs', () => {
  it.runIf(existsSync('/proc/self/schedstat'))('reads a growing wait of this process', () => {
    const first = readRunQueueWaitMs();
    expect(first).toBeGreaterThanOrEqual(0);
    expect(readRunQueueWaitMs(process.pid)).toBeGreaterThanOrEqual(first!);
  });

  it('is undefined for a process that does not exist', () => {
    expect(readRunQueueWaitMs(2 ** 30)).toBeUndefined();
  });
});
