// Test helper: the input files of an esbuild bundle, checked to come from the BUILT packages.
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Metafile } from 'esbuild';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Repository-relative paths of every input of a bundle (esbuild's metafile paths are relative
 * to its working directory, this process's). Throws, naming `what`, when an input comes from
 * `sdk/src` or `mock-server/src`: what apps bundle is `dist`, never sources.
 */
export function builtInputs(metafile: Metafile, what: string): string[] {
  const inputs = Object.keys(metafile.inputs).map((path) =>
    relative(repoRoot, resolve(process.cwd(), path)),
  );
  const fromSources = inputs.filter((path) => /^(sdk|mock-server)\/src\//.test(path));
  if (fromSources.length > 0) {
    throw new Error(`${what} took package sources, not dist: ${fromSources.join(', ')}`);
  }
  return inputs;
}
