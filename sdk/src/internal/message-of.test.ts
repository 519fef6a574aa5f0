import { describe, expect, it } from 'vitest';
import { messageOf } from './message-of.js';

describe('messageOf', () => {
  it("gives an Error's message and anything else as text", () => {
    expect(messageOf(new TypeError('no keys array'))).toBe('no keys array');
    expect(messageOf('plain text')).toBe('plain text');
    expect(messageOf(42)).toBe('42');
    expect(messageOf(undefined)).toBe('undefined');
  });
});
