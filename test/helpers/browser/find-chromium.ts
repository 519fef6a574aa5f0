import { accessSync, constants } from 'node:fs';

/** Where Debian's `chromium` package puts its launcher; `CHROMIUM_PATH` names another. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * The Chromium executable to drive: `$CHROMIUM_PATH` when set, else `/usr/bin/chromium`, if it
 * is executable. `undefined` when there is none: the browser tests then skip, unless
 * `REQUIRE_TOOLS=1` (or the older `REQUIRE_BROWSER=1`) makes that a failure. Never downloads a
 * browser.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM;
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}
