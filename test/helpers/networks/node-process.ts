// Runs Node child processes for the network tests: a script or the mock server's command line,
// with exactly the environment given (nothing inherited unless passed), collecting its output.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** A started child process. */
export interface NodeRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The exit code (or the signal's name). */
  exit: Promise<number | string | null>;
}

/**
 * Starts `node --import tsx <args>` in the repository root with `env` as its whole environment
 * (so a proxy variable of the test's own environment never leaks in).
 */
export function runNode(args: string[], env: Record<string, string> = {}): NodeRun {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Resolves with the first line the child prints, or rejects with its stderr when it exits. */
export function firstLine(run: NodeRun): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const text = run.stdout();
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
    };
    run.child.stdout?.on('data', check);
    run.exit.then((code) => reject(new Error(`exited ${code}: ${run.stderr()}`)));
  });
}
