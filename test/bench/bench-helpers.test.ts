import { describe, expect, it } from 'vitest';
import {
  formatNumber,
  formatTable,
  type Measured,
  measureAlternating,
  parseBenchArgs,
  percentile,
  perWallSecond,
  ratioOf,
  summarize,
} from './bench-helpers.js';

describe('percentile', () => {
  it('interpolates between closest ranks and leaves the input alone', () => {
    const values = [4, 1, 3, 2];
    expect(percentile(values, 50)).toBe(2.5);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile(values, 100)).toBe(4);
    expect(percentile([10], 99)).toBe(10);
    expect(values).toEqual([4, 1, 3, 2]);
  });

  it('is NaN for no samples and refuses a percentile outside 0..100', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  it('summarises samples', () => {
    expect(summarize([3, 1, 2])).toMatchObject({ n: 3, mean: 2, p50: 2, min: 1, max: 3 });
  });
});

describe('ratios and numbers', () => {
  it('gives no ratio without a positive reference', () => {
    expect(ratioOf(3, 4)).toBe(0.75);
    expect(ratioOf(3, undefined)).toBeUndefined();
    expect(ratioOf(3, 0)).toBeUndefined();
  });

  it('formats three significant digits, grouping thousands', () => {
    expect(formatNumber(1234.5)).toBe('1,235');
    expect(formatNumber(12.345)).toBe('12.3');
    expect(formatNumber(0.01234)).toBe('0.0123');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(undefined)).toBe('-');
  });
});

describe('formatTable', () => {
  it('aligns one line per figure under a header with yes / NO / - for targets', () => {
    const table = formatTable([
      {
        row: '1',
        metric: 'leases/s',
        ours: 900,
        unit: '/s',
        reference: 1000,
        ratio: 0.9,
        target: '>= 0.75',
        met: true,
      },
      { row: '5', metric: 'KiB per waiter', ours: 12, unit: 'KiB', target: '< 10', met: false },
      { row: '4 read', metric: 'events/s', ours: 5, unit: '/s' },
    ]);
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^row\s+metric\s+ours\s+reference\s+ratio\s+target\s+met$/);
    expect(lines[1]).toMatch(/^-+( +-+){6}$/);
    expect(lines[2]).toMatch(/^1 .*900 \/s .*1,000 \/s .*0\.900 .*>= 0\.75 +yes$/);
    expect(lines[3]).toMatch(/12\.0 KiB +- +- +< 10 +NO$/);
    expect(lines[4]).toMatch(/5\.00 \/s( +-){4}$/);
    const column = lines[0]!.indexOf('ours');
    expect(lines.slice(2).every((line) => line.length > column)).toBe(true);
  });
});

describe('parseBenchArgs', () => {
  it('reads --quick and --only (repeatable, comma-separated, or with =)', () => {
    expect(parseBenchArgs([])).toEqual({ quick: false, only: [] });
    expect(parseBenchArgs(['--quick', '--only', 'leases,2', '--only=5'])).toEqual({
      quick: true,
      only: ['leases', '2', '5'],
    });
  });

  it('refuses unknown arguments and a bare --only', () => {
    expect(() => parseBenchArgs(['--fast'])).toThrow(TypeError);
    expect(() => parseBenchArgs(['--only'])).toThrow(TypeError);
  });
});

describe('measureAlternating', () => {
  it('alternates the order each round and sums each operation’s slices', async () => {
    const order: string[] = [];
    // A machine that slows down over the run: every slice takes longer than the one before.
    let clock = 0;
    const slice =
      (name: string, opsPerSlice: number) =>
      (durationMs: number): Measured => {
        order.push(name);
        clock += 1;
        return { ops: opsPerSlice, wallMs: durationMs * clock, cpuMs: durationMs };
      };
    const result = await measureAlternating(slice('a', 100), slice('b', 50), {
      rounds: 4,
      sliceMs: 10,
    });
    expect(order).toEqual(['a', 'b', 'b', 'a', 'a', 'b', 'b', 'a']);
    expect(result.a).toEqual({ ops: 400, wallMs: 10 * (1 + 4 + 5 + 8), cpuMs: 40 });
    expect(result.b).toEqual({ ops: 200, wallMs: 10 * (2 + 3 + 6 + 7), cpuMs: 40 });
    // Both saw the same slow-down in total, so the ratio of the sums is the true 0.5.
    expect(perWallSecond(result.b) / perWallSecond(result.a)).toBeCloseTo(0.5, 12);
    // Each round alone is off by the slow-down between its two slices.
    [0.25, 2 / 3, 5 / 12, 4 / 7].forEach((ratio, round) => {
      expect(result.roundRatios[round]).toBeCloseTo(ratio, 12);
    });
  });
});
