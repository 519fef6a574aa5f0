import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const { mtimeMs } = await stat(join(entry.parentPath, entry.name));
    newest = Math.max(newest, mtimeMs);
  }
  return newest;
}

/**
 * Browser tests bundle the BUILT SDK (`sdk/dist`), what an app's bundler gets from npm. When
 * that build is missing or older than a file of `sdk/src` or its build config, this rebuilds it
 * (`npm run build` of the SDK workspace), so a test never runs yesterday's build. Resolves
 * whether it built.
 */
export async function ensureSdkBuilt(repoRoot: string): Promise<boolean> {
  const sdk = join(repoRoot, 'sdk');
  const built = await stat(join(sdk, 'dist', 'index.js')).then(
    (info) => info.mtimeMs,
    () => 0,
  );
  const sources = Math.max(
    await newestMtime(join(sdk, 'src')),
    (await stat(join(sdk, 'tsup.config.ts'))).mtimeMs,
    (await stat(join(sdk, 'package.json'))).mtimeMs,
  );
  if (built >= sources) return false;
  await run('npm', ['run', 'build', '--workspace', '@standby-licensing/sdk'], {
    cwd: repoRoot,
    maxBuffer: 16 * 1024 * 1024,
  });
  return true;
}
