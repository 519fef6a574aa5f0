import { describe, expect, it } from 'vitest';
import { isWithinGrace } from './id-token-grace.js';

const GRACE = 86_400_000;

describe('isWithinGrace', () => {
  it('accepts exactly while now <= exp + grace', () => {
    const exp = Date.UTC(2030, 0, 1);
    expect(isWithinGrace(exp, exp + GRACE, GRACE)).toBe(true);
    expect(isWithinGrace(exp, exp + GRACE + 1, GRACE)).toBe(false);
    expect(isWithinGrace(exp, exp - 1, GRACE)).toBe(true);
  });
});
