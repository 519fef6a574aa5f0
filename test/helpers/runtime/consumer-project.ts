import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { NpmCommand } from './node-floor.js';

const run = promisify(execFile);

/**
 * `npm pack` of workspaces (their built `dist` must exist) into `destination`; resolves the
 * tarball paths, in the order given.
 */
export async function packWorkspaces(
  repoRoot: string,
  workspaces: readonly string[],
  destination: string,
): Promise<string[]> {
  const { stdout } = await run(
    'npm',
    [
      'pack',
      '--json',
      '--pack-destination',
      destination,
      ...workspaces.flatMap((name) => ['--workspace', name]),
    ],
    { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
  );
  const packed = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return packed.map((entry) => {
    if (!entry.files.some((file) => file.path.startsWith('dist/'))) {
      throw new Error(`${entry.filename} has no dist/: run npm run build first`);
    }
    return join(destination, entry.filename);
  });
}

/** What {@link installConsumerProject} saw. */
export interface ConsumerInstall {
  /** npm's output (stdout and stderr). */
  output: string;
  /** Lines of npm's output that name EBADENGINE (none when the install passed). */
  badEngine: string[];
}

/**
 * Makes a fresh project in `folder` and installs `specs` (tarballs, `name@version`) with
 * `--engine-strict`, the way a consumer would. npm checks `engines` against the Node that runs
 * it (`npm.file`). Resolves even when npm fails, so the caller can print why.
 */
export async function installConsumerProject(
  folder: string,
  specs: readonly string[],
  npm: NpmCommand,
): Promise<ConsumerInstall & { ok: boolean }> {
  await writeFile(
    join(folder, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }, null, 2)}\n`,
  );
  const args = [...npm.args, 'install', '--engine-strict', '--no-audit', '--no-fund', ...specs];
  const result = await run(npm.file, args, { cwd: folder, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ ok: true, output: `${stdout}${stderr}` }),
    (error: { stdout?: string; stderr?: string; message: string }) => ({
      ok: false,
      output: `${error.stdout ?? ''}${error.stderr ?? error.message}`,
    }),
  );
  const badEngine = result.output.split('\n').filter((line) => line.includes('EBADENGINE'));
  return { ...result, ok: result.ok && badEngine.length === 0, badEngine };
}
