import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The flags every browser test runs Chromium with: headless, no sandbox (CI runs as root), and
 * nothing that reaches the network by itself (no QUIC, sync, component updates, first-run
 * pages or background requests): the tests' only traffic is loopback.
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** A running Chromium that Playwright can reach over the DevTools protocol. */
export interface LaunchedChromium {
  /** `ws://127.0.0.1:<port>/devtools/browser/<id>`, for `chromium.connectOverCDP`. */
  endpoint: string;
  /** What `chromium --version` would say, from the DevTools `/json/version`. */
  version: string;
  /** Kills the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Starts Chromium with {@link CHROMIUM_FLAGS} (plus `extraFlags`, e.g. `--host-resolver-rules`),
 * a fresh `--user-data-dir` and a DevTools port chosen by the browser (loopback only), and
 * resolves once it listens.
 */
export async function launchChromium(
  executable: string,
  options: { startTimeoutMs?: number; extraFlags?: readonly string[] } = {},
): Promise<LaunchedChromium> {
  const profile = await mkdtemp(join(tmpdir(), 'standby-chromium-'));
  const child = spawn(
    executable,
    [
      ...CHROMIUM_FLAGS,
      ...(options.extraFlags ?? []),
      `--user-data-dir=${profile}`,
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const close = async () => {
    await stop(child);
    await rm(profile, { recursive: true, force: true });
  };
  try {
    const endpoint = await devtoolsEndpoint(child, options.startTimeoutMs ?? 30_000);
    const info = (await (
      await fetch(new URL('/json/version', endpoint.replace(/^ws/, 'http')))
    ).json()) as {
      Browser: string;
    };
    return { endpoint, version: info.Browser, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Reads `DevTools listening on ws://...` from the browser's stderr. */
function devtoolsEndpoint(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => fail(new Error(`Chromium did not open its DevTools port in ${timeoutMs} ms:\n${seen}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match) {
        cleanup();
        // Keep draining stderr so the browser never blocks on a full pipe.
        child.stderr?.resume();
        resolve(match[1]!);
      }
    };
    const onExit = (code: number | null) => fail(new Error(`Chromium exited (${code}):\n${seen}`));
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', fail);
    };
    function fail(error: Error) {
      cleanup();
      reject(error);
    }
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', fail);
  });
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
