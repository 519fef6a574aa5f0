import { execFile } from 'node:child_process';
import { chmod, copyFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const run = promisify(execFile);

/**
 * The fuse postject flips in the `node` binary so that it runs the injected blob (Node's
 * documentation of single executable applications gives this exact string).
 */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** Options of {@link buildSingleExecutable}. */
export interface SingleExecutableOptions {
  /** The app's entry; its imports are resolved from its folder (the consumer project). */
  entry: string;
  /** Where the bundle, the SEA configuration, the blob and the executable go. */
  outDir: string;
  /** File name of the executable. */
  name: string;
  /** The `node` binary (22 or newer) that prepares the blob and is copied into the executable. */
  node: string;
  /** Node options the executable always starts with (SEA configuration `execArgv`). */
  execArgv?: string[];
}

/** What {@link buildSingleExecutable} built, with the sizes (bytes) and times (ms) of each step. */
export interface SingleExecutable {
  executable: string;
  bundleBytes: number;
  executableBytes: number;
  nodeBytes: number;
  ms: { bundle: number; blob: number; inject: number };
}

/**
 * Builds a Node single executable application the way docs/single-executable.md tells an app to:
 * esbuild bundles the entry into one CommonJS file (`platform: 'node'`), `node
 * --experimental-sea-config` turns it into a blob, and postject injects the blob into a copy of
 * `node`. postject is the repository's dev dependency (run by the Node running this).
 */
export async function buildSingleExecutable(
  options: SingleExecutableOptions,
): Promise<SingleExecutable> {
  const bundle = join(options.outDir, `${options.name}.cjs`);
  const blob = join(options.outDir, `${options.name}.blob`);
  const config = join(options.outDir, `${options.name}.sea.json`);
  const executable = join(options.outDir, options.name);

  let started = performance.now();
  await build({
    entryPoints: [options.entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    outfile: bundle,
    logLevel: 'error',
  });
  const bundleMs = performance.now() - started;

  started = performance.now();
  await writeFile(
    config,
    `${JSON.stringify(
      {
        main: bundle,
        output: blob,
        disableExperimentalSEAWarning: true,
        ...(options.execArgv ? { execArgv: options.execArgv } : {}),
      },
      null,
      2,
    )}\n`,
  );
  await run(options.node, ['--experimental-sea-config', config], { cwd: options.outDir });
  const blobMs = performance.now() - started;

  started = performance.now();
  await copyFile(options.node, executable);
  await chmod(executable, 0o755);
  const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
  await run(
    process.execPath,
    [postject, executable, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const injectMs = performance.now() - started;

  return {
    executable,
    bundleBytes: (await stat(bundle)).size,
    executableBytes: (await stat(executable)).size,
    nodeBytes: (await stat(options.node)).size,
    ms: { bundle: bundleMs, blob: blobMs, inject: injectMs },
  };
}
