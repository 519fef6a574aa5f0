import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { NpmCommand } from './node-floor.js';

const run = promisify(execFile);

const RELEASE = /^(\d+)\.(\d+)\.(\d+)$/;

/**
 * The highest release (`X.Y.Z`, no pre-release) of `versions`, compared as numbers (npm lists
 * them in publication order, and `24.9.0` sorts after `24.21.0` as text); `undefined` when
 * there is none.
 *
 * @example
 * newestVersion(['24.9.0', '24.21.0', '25.0.0-rc.1']); // '24.21.0'
 */
export function newestVersion(versions: readonly string[]): string | undefined {
  const releases = versions
    .map((text) => ({ text, match: RELEASE.exec(text) }))
    .filter((entry): entry is { text: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ text, match }) => ({ text, parts: match.slice(1).map(Number) }));
  releases.sort((a, b) => {
    const i = a.parts.findIndex((part, index) => part !== b.parts[index]);
    return i === -1 ? 0 : a.parts[i]! - b.parts[i]!;
  });
  return releases.at(-1)?.text;
}

/**
 * The newest release of `packageName` within `major` on the registry (`npm view`), or
 * `undefined` when the registry cannot be asked (the caller only prints a hint from it).
 */
export async function newestOnRegistry(
  packageName: string,
  major: number,
  npm: NpmCommand,
): Promise<string | undefined> {
  try {
    const { stdout } = await run(
      npm.file,
      [...npm.args, 'view', `${packageName}@${major}`, 'version', '--json'],
      { timeout: 30_000, maxBuffer: 4 * 1024 * 1024 },
    );
    const listed = JSON.parse(stdout) as string | string[];
    return newestVersion(Array.isArray(listed) ? listed : [listed]);
  } catch {
    return undefined;
  }
}
