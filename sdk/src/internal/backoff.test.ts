import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeBackoffDelay } from './backoff.js';

describe('computeBackoffDelay', () => {
  it('stays within [ceiling / 2, ceiling] and never above maxMs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 120_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, baseMs, extra, r) => {
          const maxMs = baseMs + extra;
          const ceiling = Math.min(maxMs, baseMs * 2 ** retry);
          const delay = computeBackoffDelay(retry, { baseMs, maxMs, random: () => r });
          return delay >= Math.floor(ceiling / 2) && delay <= Math.ceil(ceiling) && delay <= maxMs;
        },
      ),
    );
  });

  it('doubles per retry', () => {
    const delays = [0, 1, 2, 3].map((n) =>
      computeBackoffDelay(n, { baseMs: 100, maxMs: 10_000, random: () => 0.999_999 }),
    );
    expect(delays).toEqual([100, 200, 400, 800]);
  });
});
