import { describe, expect, it } from 'vitest';
import { generateApiKey } from './options.js';

describe('generateApiKey', () => {
  it('makes 192-bit hex keys, none of which a command line reads as an option', () => {
    // A base64url key starts with `-` once in 64 keys; among 2 000 that would all but surely show.
    const keys = Array.from({ length: 2000 }, generateApiKey);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{48}$/);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
