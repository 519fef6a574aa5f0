// Drives test/trust/fixtures/licensed-app.ts: a licensed app in a child Node process that a
// test talks to line by line, kills with SIGKILL or ends with SIGTERM. Not a test file itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TrustedRoot } from '@standby-licensing/sdk';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const APP = 'test/trust/fixtures/licensed-app.ts';

/** What the app is started with (see the fixture's header). */
export interface AppConfig {
  mainUrl: string;
  standbyUrl: string;
  roots: TrustedRoot[];
  idToken: string;
  storePath: string;
  /** The app's clock: Date.now() + this. */
  clockOffsetMs: number;
  offline?: boolean;
}

/** A running app. */
export interface AppProcess {
  /** Sends a command and resolves its JSON answer. */
  send(command: string): Promise<Record<string, unknown>>;
  /** Sends `signal` and resolves how the process ended (exit code or signal name). */
  stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<number | string | null>;
  child: ChildProcess;
}

/** Starts the app and waits until it is ready. */
export async function startApp(config: AppConfig): Promise<AppProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', APP, JSON.stringify(config)], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let buffered = '';
  let stderr = '';
  const waiting: Array<(line: Record<string, unknown>) => void> = [];
  const exit = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      waiting.shift()?.(JSON.parse(line) as Record<string, unknown>);
    }
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      waiting.push(resolve);
      void exit.then((code) => reject(new Error(`the app exited (${code}): ${stderr}`)));
    });
  await next();
  return {
    child,
    send(command) {
      const answer = next();
      child.stdin?.write(`${command}\n`);
      return answer;
    },
    stop(signal) {
      child.kill(signal);
      return exit;
    },
  };
}
