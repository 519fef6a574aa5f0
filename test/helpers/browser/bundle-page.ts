import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { builtInputs } from '../built-inputs.js';

/** A page script bundled for the browser, and the files it was made of. */
export interface PageBundle {
  /** The ES module to serve as the page's script. */
  code: string;
  /** Repository-relative paths of every input file (node_modules and dist included). */
  inputs: string[];
}

/**
 * Bundles a page script (`test/browser/pages/*.ts`) the way an app's bundler would: esbuild,
 * browser platform, ES module, minified, JSX with React's automatic runtime. `@standby-licensing/*` imports resolve through
 * node_modules to the packages' `exports`, that is to the BUILT `dist` files, never to sources:
 * the repository's tsconfig `paths` (which point at sources, for tests and typecheck) are
 * ignored. Throws when an input comes from `sdk/src` or `mock-server/src`.
 */
export async function bundlePage(entry: string | URL): Promise<PageBundle> {
  const entryPath = typeof entry === 'string' ? entry : fileURLToPath(entry);
  const result = await build({
    entryPoints: [entryPath],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    // JSX pages (the React example) use the automatic runtime; React's production build, as an
    // app's bundler makes it. Neither changes a page without JSX or React.
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    // Replaces every tsconfig.json on disk, so `paths` cannot redirect to sources.
    tsconfigRaw: {},
  });
  const inputs = builtInputs(result.metafile, 'the page bundle');
  return { code: result.outputFiles[0]!.text, inputs };
}
