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
 * Runs the BUILT CLI's `standby-licensing embed-root <source...> --format esm` into a temporary
 * `.mjs` file, imports it and returns the root it exports, as an app's build would embed it.
 */
async function embedRoot(
  source: string[],
  exportName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TrustedRoot> {
  const dir = await mkdtemp(join(tmpdir(), 'standby-root-'));
  try {
    const out = join(dir, `${exportName}.mjs`);
    await run(
      process.execPath,
      [cli, 'embed-root', ...source, '--format', 'esm', '--export-name', exportName, '--out', out],
      { env },
    );
    const module = (await import(pathToFileURL(out).href)) as Record<string, TrustedRoot>;
    const { pem, keyId } = module[exportName]!;
    return keyId === undefined ? { pem } : { pem, keyId };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The standby's root as an app embeds it: `embed-root --standby-url --new-key` makes a new signing
 * key (`POST <standbyUrl>/signing-keys`; the API key goes through the environment, never argv).
 */
export function embedStandbyRoot(standbyUrl: string, apiKey: string): Promise<TrustedRoot> {
  return embedRoot(['--standby-url', standbyUrl, '--new-key'], 'standbyRoot', {
    ...process.env,
    STANDBY_LICENSING_API_KEY: apiKey,
  });
}

/** The main service's root: `embed-root --jwks-url` takes the last `x5c` entry of main's JWKS. */
export function embedMainRoot(mainUrl: string): Promise<TrustedRoot> {
  return embedRoot(['--jwks-url', `${mainUrl}/.well-known/jwks.json`], 'mainRoot');
}

/** Both roots of a mock server, made by the built CLI ({@link embedStandbyRoot}, {@link embedMainRoot}). */
export async function embedAppRoots(sources: RootSources): Promise<AppRoots> {
  const [standby, main] = await Promise.all([
    embedStandbyRoot(sources.standbyUrl, sources.apiKey),
    embedMainRoot(sources.mainUrl),
  ]);
  return { standby, main };
}
