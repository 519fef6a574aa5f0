import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HARDWARE_TEXT_ADVICE,
  hardwareTextProblem,
  MAX_HARDWARE_TEXT_LENGTH,
} from './hardware-id.js';

describe('hardwareTextProblem', () => {
  it('accepts what the wire carries whole', () => {
    for (const value of ['pc-1', 'Büro PC = #2 & spare', 'x'.repeat(MAX_HARDWARE_TEXT_LENGTH)]) {
      expect(hardwareTextProblem(value)).toBeUndefined();
    }
  });

  it('names the refused character and its position', () => {
    expect(hardwareTextProblem('pc-1;rack')).toBe("contains ';' at position 5");
    expect(hardwareTextProblem('a\tb')).toBe('contains the control character U+0009 at position 2');
    expect(hardwareTextProblem('\u0000')).toBe(
      'contains the control character U+0000 at position 1',
    );
    expect(hardwareTextProblem('ok\u007f')).toBe(
      'contains the control character U+007F at position 3',
    );
    expect(hardwareTextProblem('ok\u009f')).toBe(
      'contains the control character U+009F at position 3',
    );
    // The first printable character after the C1 range is fine.
    expect(hardwareTextProblem('\u00a0')).toBeUndefined();
    expect(hardwareTextProblem(' ~')).toBeUndefined();
  });

  it('names the position of a lone UTF-16 surrogate, first character included', () => {
    expect(hardwareTextProblem('\uDC00pc')).toBe('contains a lone UTF-16 surrogate at position 1');
    expect(hardwareTextProblem('pc\uD800-1')).toBe(
      'contains a lone UTF-16 surrogate at position 3',
    );
    // A whole surrogate pair is a character like any other.
    expect(hardwareTextProblem('pc-\uD83D\uDE00')).toBeUndefined();
  });

  it('refuses an empty, too long or non-string value', () => {
    expect(hardwareTextProblem('')).toBe('is empty');
    expect(hardwareTextProblem('x'.repeat(257))).toBe('is 257 characters long, more than 256');
    expect(hardwareTextProblem(42)).toBe('is not a string');
  });

  it('refuses exactly the strings holding a ; or a control character', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: MAX_HARDWARE_TEXT_LENGTH }), (value) => {
        const bad = [...value].some((c) => {
          const code = c.charCodeAt(0);
          return c === ';' || code < 0x20 || (code >= 0x7f && code <= 0x9f);
        });
        expect(hardwareTextProblem(value) !== undefined).toBe(bad);
      }),
    );
  });

  it('advises what the rule accepts, with the same limit, and where to get such an id', () => {
    expect(HARDWARE_TEXT_ADVICE).toBe(
      `Pass an id of at most ${MAX_HARDWARE_TEXT_LENGTH} characters without ';' or control characters, e.g. machineId() from @standby-licensing/sdk/node.`,
    );
  });
});
