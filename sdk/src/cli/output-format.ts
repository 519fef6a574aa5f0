import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { usageError } from './cli-error.js';

/**
 * What `embed-root` writes: a TypeScript module, an ES module, a CommonJS module, JSON data, or
 * the bare PEM certificate.
 */
export type OutputFormat = 'ts' | 'esm' | 'cjs' | 'json' | 'pem';

/** Every {@link OutputFormat}, in the order the usage text lists them. */
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['ts', 'esm', 'cjs', 'json', 'pem'];

/** The format each output file extension implies. */
const BY_EXTENSION: Readonly<Record<string, OutputFormat>> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.js': 'esm',
  '.mjs': 'esm',
  '.cjs': 'cjs',
  '.json': 'json',
  '.pem': 'pem',
};

/**
 * The output format: `--format` when given (it wins over the extension, e.g. CommonJS in a
 * `.js` file), else the one `--out`'s extension implies. Throws a usage error for an unknown
 * `--format`, or an extension that implies none without `--format`.
 *
 * @param out - the `--out` path.
 * @param format - the `--format` value, if any.
 * @example
 * chooseOutputFormat('src/root.cjs'); // 'cjs'
 * chooseOutputFormat('src/root.js', 'cjs'); // 'cjs'
 */
export function chooseOutputFormat(out: string, format?: string): OutputFormat {
  if (format !== undefined) {
    if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
      throw usageError(`--format must be one of ${OUTPUT_FORMATS.join(', ')}, got ${format}`);
    }
    return format as OutputFormat;
  }
  const extension = extname(out).toLowerCase();
  const implied = BY_EXTENSION[extension];
  if (implied === undefined) {
    throw usageError(
      `cannot tell what to write from the name ${out}: use a ${Object.keys(BY_EXTENSION).join(', ')} file, or --format ${OUTPUT_FORMATS.join('|')}`,
    );
  }
  return implied;
}

/**
 * Whether Node would load a `.js` file at `file` as CommonJS: the nearest package.json above it
 * has no `"type": "module"` (or there is none). Bundlers read such a file as ESM regardless.
 */
export async function isCommonJsScope(file: string): Promise<boolean> {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const text = await readFile(join(dir, 'package.json'), 'utf8').catch(() => undefined);
    if (text !== undefined) {
      try {
        return (JSON.parse(text) as { type?: unknown }).type !== 'module';
      } catch {
        return true; // Node refuses a broken package.json; say what it says for no "type".
      }
    }
    if (dirname(dir) === dir) return true;
  }
}
