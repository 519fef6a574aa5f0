import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { LEASE_CLAIM_NAMES, RESERVED_ITEM_NAMES, RESERVED_PARAMETERS } from './wire-names.js';

const protocol = () => readFile(new URL('../../docs/protocol.md', import.meta.url), 'utf8');

/** The backticked names of the first column of the "Reserved names" table of docs/protocol.md. */
function reservedInDocs(text: string): string[] {
  const table = text.slice(text.indexOf('- **Reserved names**'), text.indexOf('- **Consume and'));
  return table
    .split('\n')
    .filter((line) => /^\s*\| `/.test(line))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

describe('wire names', () => {
  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(RESERVED_PARAMETERS)).toBe(true);
    expect(Object.isFrozen(LEASE_CLAIM_NAMES)).toBe(true);
  });

  it('reserve every parameter and every claim for items, __proto__ included', () => {
    expect(new Set(RESERVED_ITEM_NAMES)).toEqual(
      new Set([...RESERVED_PARAMETERS, ...LEASE_CLAIM_NAMES]),
    );
    expect(RESERVED_ITEM_NAMES.has('__proto__')).toBe(true);
  });

  it('are the reserved parameters docs/protocol.md lists', async () => {
    const documented = reservedInDocs(await protocol());
    expect(documented.length).toBeGreaterThan(5);
    expect(new Set(documented)).toEqual(new Set(RESERVED_PARAMETERS));
  });

  it('are the token claims docs/protocol.md names for a refused item', async () => {
    const text = await protocol();
    const sentence = text.slice(
      text.indexOf('item named like a reserved parameter or a token claim'),
    );
    const listed = sentence.slice(0, sentence.indexOf(')')).matchAll(/`([^`]+)`/g);
    expect(new Set([...listed].map((m) => m[1]))).toEqual(
      new Set(LEASE_CLAIM_NAMES.filter((name) => name !== '__proto__')),
    );
  });
});
