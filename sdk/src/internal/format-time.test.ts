import { describe, expect, it } from 'vitest';
import { formatTime } from './format-time.js';

describe('formatTime', () => {
  it('writes a time a Date can hold as ISO 8601', () => {
    expect(formatTime(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(formatTime(Date.UTC(2030, 0, 1, 12, 30))).toBe('2030-01-01T12:30:00.000Z');
    expect(formatTime(8.64e15)).toBe('+275760-09-13T00:00:00.000Z');
  });

  it('writes any other number as its milliseconds instead of throwing', () => {
    expect(formatTime(9e15)).toBe('9000000000000000 ms');
    expect(formatTime(Number.POSITIVE_INFINITY)).toBe('Infinity ms');
    expect(formatTime(Number.NaN)).toBe('NaN ms');
  });
});
