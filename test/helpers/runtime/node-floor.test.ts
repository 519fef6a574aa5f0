import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeFloor, packageNodeFloor } from './node-floor.js';

describe('nodeFloor', () => {
  it.each([
    ['>=20.11', '20.11.0'],
    ['>=20.11.1', '20.11.1'],
    ['>= v22', '22.0.0'],
  ])('%s starts at %s', (range, floor) => {
    expect(nodeFloor(range)).toBe(floor);
  });

  it.each(['^20.19.0 || >=22.12.0', '20.x', '>20.11', ''])('refuses %j', (range) => {
    expect(() => nodeFloor(range)).toThrow(/>=X\.Y\.Z/);
  });

  it('finds one floor in each package (the one test/runtime proves)', () => {
    const url = (path: string) => new URL(`../../../${path}`, import.meta.url);
    for (const path of ['sdk/package.json', 'mock-server/package.json']) {
      const range = JSON.parse(readFileSync(url(path), 'utf8')).engines.node as string;
      expect(packageNodeFloor(url(path).pathname)).toBe(nodeFloor(range));
    }
  });
});
