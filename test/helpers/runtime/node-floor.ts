import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The lowest Node version an `engines.node` range allows, as `major.minor.patch`. Only the
 * `>=X[.Y[.Z]]` form is accepted: that is how the packages state their floor, and anything
 * else (`^20.19 || >=22.12`) has more than one lowest version to prove.
 *
 * @example
 * nodeFloor('>=20.11'); // '20.11.0'
 */
export function nodeFloor(range: string): string {
  const match = /^\s*>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(range);
  if (!match) {
    throw new Error(`engines.node must be ">=X.Y.Z" to name one floor to prove, got "${range}"`);
  }
  const [, major, minor = '0', patch = '0'] = match;
  return `${Number(major)}.${Number(minor)}.${Number(patch)}`;
}

/** `engines.node` of a package.json, parsed by {@link nodeFloor}. */
export function packageNodeFloor(packageJsonPath: string): string {
  const manifest = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as {
    name: string;
    engines?: { node?: string };
  };
  const range = manifest.engines?.node;
  if (range === undefined) throw new Error(`${manifest.name} has no engines.node`);
  return nodeFloor(range);
}

/** How to start npm: a program and the arguments before npm's own. */
export interface NpmCommand {
  file: string;
  args: string[];
}

/**
 * The machine's npm, started by `node` (npm's own `bin/npm-cli.js`). With another Node binary
 * as `node`, npm checks `engines` against that Node's version: the consumer's view on the floor.
 */
export function machineNpm(node: string = process.execPath): NpmCommand {
  const candidates = [process.env.npm_execpath];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, 'npm'))) candidates.push(realpathSync(join(dir, 'npm')));
  }
  const cli = candidates.find((path) => path !== undefined && /npm-cli\.js$/.test(path));
  if (cli === undefined) throw new Error("cannot find npm's npm-cli.js (npm_execpath, PATH)");
  return { file: node, args: [cli] };
}
