import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { TrustedRoot } from '@standby-licensing/sdk';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../../sdk/dist/cli.js', import.meta.url));

/** The two roots a browser app embeds. */
export interface AppRoots {
  /** The standby's root, with the `keyId` of the signing key it was made for. */
  standby: TrustedRoot;
  /** The main service's root (no `keyId`: the main service has no signing-key selection). */
  main: TrustedRoot;
}

/** Where {@link embedAppRoots} gets the roots from (a mock server's `info`). */
export interface RootSources {
  standbyUrl: string;
  mainUrl: string;
  apiKey: string;
}

/**
 * Gets the roots the way an app embeds them at build time: the BUILT CLI's
 * `standby-licensing embed-root --format esm` writes one ES module for the standby's root (a new
 * signing key from `POST <standbyUrl>/signing-keys`, API key from the environment, never argv)
 * and one for the main service's root (the last `x5c` entry of main's JWKS), then this imports
 * both modules and returns what they export, ready to hand to a page.
 */
export async function embedAppRoots(sources: RootSources): Promise<AppRoots> {
  const dir = await mkdtemp(join(tmpdir(), 'standby-roots-'));
  try {
    const standbyFile = join(dir, 'standby-root.mjs');
    const mainFile = join(dir, 'main-root.mjs');
    const env = { ...process.env, STANDBY_LICENSING_API_KEY: sources.apiKey };
    await Promise.all([
      run(
        process.execPath,
        [
          cli,
          'embed-root',
          '--standby-url',
          sources.standbyUrl,
          '--format',
          'esm',
          '--out',
          standbyFile,
        ],
        { env },
      ),
      run(process.execPath, [
        cli,
        'embed-root',
        '--jwks-url',
        `${sources.mainUrl}/.well-known/jwks.json`,
        '--format',
        'esm',
        '--export-name',
        'mainRoot',
        '--out',
        mainFile,
      ]),
    ]);
    const standby = (await import(pathToFileURL(standbyFile).href)) as {
      rootCertificate: TrustedRoot;
    };
    const main = (await import(pathToFileURL(mainFile).href)) as { mainRoot: TrustedRoot };
    return { standby: { ...standby.rootCertificate }, main: { ...main.mainRoot } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
