import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, type OutputFile } from 'esbuild';
import { builtInputs } from '../helpers/built-inputs.js';
import type { BenchLine, BenchRow } from './bench-result.js';

/**
 * Budget of row 6: an events-only browser app, gzipped, in kB: what it loads at start when its
 * bundler splits code, and the whole of it bundled as one file (signing inlined).
 */
export const EVENTS_BUDGET_KB = 15;
/** Budget of row 6: a licensing-client browser bundle, gzipped, in kB. */
export const LICENSING_BUDGET_KB = 75;

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const OUT_DIR = resolve(repoRoot, 'bench-bundles');

/** Sizes in bytes. */
interface Size {
  raw: number;
  gzip: number;
}

/** A measured app bundle. */
export interface BundleMeasure {
  /** The entry file and every chunk it imports statically: what loads at start. */
  initial: Size;
  /** Chunks reached only through `import()`: loaded at first use. */
  lazy: Size;
  /** Output files (entry and chunks). */
  files: number;
  /** Minified bytes loaded at start per package (`sdk` for our dist files), largest first. */
  packages: Array<[string, number]>;
}

const sizeOf = (file: OutputFile): Size => ({
  raw: file.contents.length,
  gzip: gzipSync(file.contents, { level: 9 }).length,
});
const add = (a: Size, b: Size): Size => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip });
const kB = (bytes: number) => bytes / 1000;

/** Which package an esbuild input path belongs to: `ky`, `@peculiar/asn1-x509`, or `sdk`. */
function packageOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match) return match[1]!;
  return input.includes('sdk/dist/') ? 'sdk' : input;
}

/**
 * Bundles `code` (an app's entry module) the way an app's bundler would: esbuild, browser
 * platform, ES modules, minified, with `splitting` or as one file. `@standby-licensing/sdk`
 * resolves through node_modules to the package's `exports`, that is to the BUILT `sdk/dist`
 * (the repository's tsconfig `paths` to sources are ignored); throws when an input is a source.
 */
export async function measureBundle(code: string, splitting: boolean): Promise<BundleMeasure> {
  const result = await build({
    stdin: { contents: code, resolveDir: repoRoot, sourcefile: 'app.js', loader: 'js' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    splitting,
    outdir: OUT_DIR,
    write: false,
    metafile: true,
    logLevel: 'silent',
    // Replaces every tsconfig.json on disk, so `paths` cannot redirect to sources.
    tsconfigRaw: {},
  });
  builtInputs(result.metafile, 'the bundle');
  const outputs = result.metafile.outputs;
  const key = (file: OutputFile) => relative(process.cwd(), file.path);
  const files = result.outputFiles.filter((file) => file.path.endsWith('.js'));
  const entry = files.find((file) => outputs[key(file)]?.entryPoint !== undefined);
  if (!entry) throw new Error('esbuild wrote no entry file');
  // Walk the static imports from the entry: everything reached loads at start.
  const initialKeys = new Set<string>();
  const walk = (path: string) => {
    if (initialKeys.has(path)) return;
    initialKeys.add(path);
    for (const imported of (outputs[path] as Metafile['outputs'][string]).imports) {
      if (imported.kind === 'import-statement' && !imported.external) walk(imported.path);
    }
  };
  walk(key(entry));
  let initial: Size = { raw: 0, gzip: 0 };
  let lazy: Size = { raw: 0, gzip: 0 };
  const packages = new Map<string, number>();
  for (const file of files) {
    if (!initialKeys.has(key(file))) {
      lazy = add(lazy, sizeOf(file));
      continue;
    }
    initial = add(initial, sizeOf(file));
    for (const [input, { bytesInOutput }] of Object.entries(outputs[key(file)]!.inputs)) {
      const name = packageOf(input);
      packages.set(name, (packages.get(name) ?? 0) + bytesInOutput);
    }
  }
  return {
    initial,
    lazy,
    files: files.length,
    packages: [...packages].filter(([, bytes]) => bytes > 0).sort((a, b) => b[1] - a[1]),
  };
}

/** The largest contributors, as `name=kB` details. */
function topPackages(measure: BundleMeasure, count: number): Record<string, string> {
  return Object.fromEntries(
    measure.packages
      .slice(0, count)
      .map(([name, bytes]) => [`min ${name}`, `${kB(bytes).toFixed(1)} kB`]),
  );
}

const importing = (names: string) =>
  `import { ${names} } from '@standby-licensing/sdk';\nglobalThis.app = { ${names} };\n`;

/**
 * Row 6: browser bundle sizes of the BUILT SDK (`sdk/dist`, run `npm run build` first), as an app
 * bundler makes them: esbuild, `platform: 'browser'`, ESM, minified, gzip level 9, 1 kB = 1000
 * bytes. Events-only (`createEventClient`) with code splitting: what loads at start (entry and
 * its static chunks) against the budget, the lazy signing chunk beside it; and bundled as one
 * file (signing inlined) against the same budget. Licensing client (`createLicensingClient`) as
 * one file against its budget. The full run adds the whole main entry.
 */
export const bundlesRow: BenchRow = {
  name: 'bundles',
  id: 6,
  title: 'browser bundle sizes of the built SDK (esbuild, minified, gzip)',
  async run({ quick, log }) {
    if (!existsSync(resolve(repoRoot, 'sdk/dist/index.js'))) {
      throw new Error('sdk/dist is missing: run `npm run build` first');
    }
    const lines: BenchLine[] = [];
    log('bundling createEventClient (splitting)');
    const events = await measureBundle(importing('createEventClient'), true);
    lines.push({
      row: '6 events',
      metric: 'events-only app (createEventClient) at start: entry + static chunks, gzip',
      ours: kB(events.initial.gzip),
      unit: 'kB',
      target: `<= ${EVENTS_BUDGET_KB} kB`,
      met: kB(events.initial.gzip) <= EVENTS_BUDGET_KB,
      details: {
        'raw kB': kB(events.initial.raw),
        files: events.files,
        ...(quick ? {} : topPackages(events, 4)),
      },
    });
    lines.push({
      row: '6 events lazy',
      metric: 'events: chunks loaded at first put/putAll or key-signed read, gzip',
      ours: kB(events.lazy.gzip),
      unit: 'kB',
      details: { 'raw kB': kB(events.lazy.raw) },
    });
    log('bundling createEventClient (one file)');
    const single = await measureBundle(importing('createEventClient'), false);
    lines.push({
      row: '6 events 1 file',
      metric: 'events-only app bundled without splitting (signing inlined), gzip',
      ours: kB(single.initial.gzip),
      unit: 'kB',
      target: `<= ${EVENTS_BUDGET_KB} kB`,
      met: kB(single.initial.gzip) <= EVENTS_BUDGET_KB,
      details: { 'raw kB': kB(single.initial.raw), ...(quick ? {} : topPackages(single, 6)) },
    });
    log('bundling createLicensingClient (one file)');
    const licensing = await measureBundle(importing('createLicensingClient'), false);
    lines.push({
      row: '6 licensing',
      metric: 'licensing-client app (createLicensingClient), one file, gzip',
      ours: kB(licensing.initial.gzip),
      unit: 'kB',
      target: `<= ${LICENSING_BUDGET_KB} kB`,
      met: kB(licensing.initial.gzip) <= LICENSING_BUDGET_KB,
      details: { 'raw kB': kB(licensing.initial.raw), ...(quick ? {} : topPackages(licensing, 6)) },
    });
    if (!quick) {
      log('bundling the whole main entry (one file)');
      const everything = await measureBundle(
        "import * as sdk from '@standby-licensing/sdk';\nglobalThis.app = sdk;\n",
        false,
      );
      lines.push({
        row: '6 whole entry',
        metric: 'everything in the main entry (import *), one file, gzip',
        ours: kB(everything.initial.gzip),
        unit: 'kB',
        details: { 'raw kB': kB(everything.initial.raw) },
      });
    }
    return lines;
  },
};
