import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { chooseOutputFormat, isCommonJsScope, OUTPUT_FORMATS } from './output-format.js';

function refusal(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('expected a CliError');
}

describe('chooseOutputFormat', () => {
  it.each([
    ['src/root.ts', 'ts'],
    ['src/root.mts', 'ts'],
    ['src/root.cts', 'ts'],
    ['src/root.js', 'esm'],
    ['src/root.mjs', 'esm'],
    ['src/root.cjs', 'cjs'],
    ['ROOT.JSON', 'json'],
    ['certs/root.pem', 'pem'],
  ])('%s is %s', (out, format) => {
    expect(chooseOutputFormat(out)).toBe(format);
  });

  it('takes --format over the extension', () => {
    for (const format of OUTPUT_FORMATS) {
      expect(chooseOutputFormat('src/root.js', format)).toBe(format);
      expect(chooseOutputFormat('src/root.txt', format)).toBe(format);
    }
  });

  it.each(['root.txt', 'root', 'root.d.ts.bak', 'root.tsx'])(
    'refuses %s without --format as a usage error',
    (out) => {
      const error = refusal(() => chooseOutputFormat(out));
      expect(error.exitCode).toBe(2);
      expect(error.message).toContain('--format ts|esm|cjs|json|pem');
    },
  );

  it.each(['typescript', 'TS', 'commonjs', ''])(
    'refuses --format %j as a usage error',
    (format) => {
      expect(refusal(() => chooseOutputFormat('root.ts', format)).exitCode).toBe(2);
    },
  );
});

describe('isCommonJsScope', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'output-format-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    [{ type: 'module' }, false],
    [{ type: 'commonjs' }, true],
    [{ name: 'no-type' }, true],
  ])('package.json %j above the file: %s', async (manifest, commonJs) => {
    const project = await mkdtemp(join(dir, 'project-'));
    await mkdir(join(project, 'src', 'roots'), { recursive: true });
    await writeFile(join(project, 'package.json'), JSON.stringify(manifest));
    expect(await isCommonJsScope(join(project, 'src', 'roots', 'root.js'))).toBe(commonJs);
  });

  it('takes the nearest package.json', async () => {
    const project = await mkdtemp(join(dir, 'nested-'));
    await mkdir(join(project, 'packages', 'app'), { recursive: true });
    await writeFile(join(project, 'package.json'), '{"type":"module"}');
    await writeFile(join(project, 'packages', 'app', 'package.json'), '{}');
    expect(await isCommonJsScope(join(project, 'packages', 'app', 'root.js'))).toBe(true);
    expect(await isCommonJsScope(join(project, 'root.js'))).toBe(false);
  });

  it('treats an unreadable package.json as CommonJS', async () => {
    const project = await mkdtemp(join(dir, 'broken-'));
    await writeFile(join(project, 'package.json'), '{ not json');
    expect(await isCommonJsScope(join(project, 'root.js'))).toBe(true);
  });
});
