import { describe, expect, it } from 'vitest';
import { loadSigning } from './load-signing.js';

describe('loadSigning', () => {
  it('loads the signing module once and hands the same load to every caller', async () => {
    const first = loadSigning();
    expect(loadSigning()).toBe(first);
    const signing = await first;
    expect(typeof signing.signCompactJws).toBe('function');
    expect(typeof signing.importSigningKey).toBe('function');
    expect(loadSigning()).toBe(first);
  });
});
