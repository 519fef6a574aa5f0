// The programs some tests drive that npm cannot install: Debian's tinyproxy (a real proxy for
// test/networks/) and curl (the QA recipes of docs/qa-recipes.md). Chromium, the third, has its
// own global setup (test/helpers/browser/global-setup.ts) that follows the same rule:
//
// - installed: the tests run;
// - missing: the tests that need it are skipped, with one line saying what to install, so
//   `npm install && npm test` passes on a machine with only Node;
// - missing with REQUIRE_TOOLS=1 (.ci/run sets it): the test file fails, so CI proves every
//   claim with the real programs.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A program some tests need, and the Debian package that installs it. */
export interface SystemTool {
  /** The program's name (and, without `paths`, what is looked up on the PATH). */
  name: string;
  /** The Debian package to `apt-get install`. */
  debianPackage: string;
  /** Where to look instead of the PATH (tinyproxy lives in /usr/bin or /usr/sbin). */
  paths?: readonly string[];
}

export const TINYPROXY: SystemTool = {
  name: 'tinyproxy',
  debianPackage: 'tinyproxy',
  paths: ['/usr/bin/tinyproxy', '/usr/sbin/tinyproxy', '/usr/local/bin/tinyproxy'],
};

export const CURL: SystemTool = { name: 'curl', debianPackage: 'curl' };

/** The variable that turns a missing tool (Chromium included) into a failure. */
export const REQUIRE_TOOLS = 'REQUIRE_TOOLS';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The tool's executable, or undefined when it is not installed. */
export function findSystemTool(
  tool: SystemTool,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const candidates =
    tool.paths ??
    (env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => dir !== '')
      .map((dir) => join(dir, tool.name));
  return candidates.find(isExecutable);
}

/** Whether missing tools fail the run (`REQUIRE_TOOLS=1`; `REQUIRE_BROWSER=1` for Chromium). */
export function toolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[REQUIRE_TOOLS] === '1';
}

/** What to say about a missing tool: the package to install. */
export function installHint(tool: SystemTool): string {
  return `${tool.name} is not installed (Debian: apt-get install ${tool.debianPackage})`;
}

/**
 * For a test file that needs `tool`: true when the tool is missing and `what` (the file's tests)
 * must be skipped, after printing one line saying so and what to install. With REQUIRE_TOOLS=1
 * a missing tool throws instead, failing the file.
 *
 * @example
 * const noProxy = skipWithout(TINYPROXY, 'the licensing client through tinyproxy');
 * describe.skipIf(noProxy)('the licensing client through tinyproxy', () => { ... });
 */
export function skipWithout(
  tool: SystemTool,
  what: string,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (findSystemTool(tool, env) !== undefined) return false;
  if (toolsRequired(env)) {
    throw new Error(`${REQUIRE_TOOLS}=1 but ${installHint(tool)}: ${what} cannot run`);
  }
  console.warn(
    `SKIPPING ${what}: ${installHint(tool)}; ${REQUIRE_TOOLS}=1 makes this a failure (.ci/run sets it)`,
  );
  return true;
}
