import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loneSurrogateAt } from './lone-surrogate.js';

describe('loneSurrogateAt', () => {
  it('finds a high or low surrogate without its other half', () => {
    expect(loneSurrogateAt('pc-\ud800')).toBe(3);
    expect(loneSurrogateAt('\udc00pc')).toBe(0);
    expect(loneSurrogateAt('a\ud800b')).toBe(1);
    expect(loneSurrogateAt('\udc00\ud800')).toBe(0);
  });

  it('passes well-formed text, pairs included', () => {
    expect(loneSurrogateAt('')).toBe(-1);
    expect(loneSurrogateAt('Büro 😀 PC')).toBe(-1);
    expect(loneSurrogateAt('\ud83d\ude00')).toBe(-1);
  });

  it('agrees with encodeURIComponent on any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        let encodes = true;
        try {
          encodeURIComponent(text);
        } catch {
          encodes = false;
        }
        expect(loneSurrogateAt(text) === -1).toBe(encodes);
      }),
    );
  });
});
