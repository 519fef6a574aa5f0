import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Repository root (two levels above this folder). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The JSON line the mock server prints once it listens. */
export interface ChildServerInfo {
  mainUrl: string;
  standbyUrl: string;
  eventUrl: string;
  idpUrl: string;
  apiKey: string;
}

/** A mock server running in its own process (so load generators never share its event loop). */
export interface ChildServer {
  info: ChildServerInfo;
  /** Origin, e.g. `http://127.0.0.1:40123`. */
  origin: string;
  /** Pid of the node process that runs the server (not of a wrapper). */
  pid: number;
  /** Resident set size of the server process now, in KiB (`VmRSS` of /proc/<pid>/status). */
  rssKiB(): number;
  /** CPU time the server process has used so far, in ms. */
  cpuMs(): number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  close(graceMs?: number): Promise<void>;
}

/** Options of {@link startChildServer}. */
export interface ChildServerOptions {
  /** Extra command-line options of the mock server, e.g. `['--admin']`. */
  args?: string[];
  /** File-descriptor limit set with `ulimit -n` before the server starts. Default: inherited. */
  fdLimit?: number;
  /** Extra node flags, e.g. `['--cpu-prof']`. */
  nodeFlags?: string[];
  /** How long to wait for the start line, in ms. Default 30 000. */
  startTimeoutMs?: number;
}

// Children still running when the harness exits (a crash, Ctrl-C) are killed with it.
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(130));
}

/** `VmRSS` of a process in KiB, from /proc (Linux). */
export function readRssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]);
}

/**
 * Spawns a node process with tsx and waits for its first stdout line (JSON). The process is
 * started through `sh -c 'ulimit -n N; exec node ...'` when `fdLimit` is given: `exec` keeps the
 * pid, so the returned pid is the node process itself.
 */
export async function spawnNodeScript(
  script: string,
  args: readonly string[],
  options: { fdLimit?: number; nodeFlags?: string[]; startTimeoutMs?: number } = {},
): Promise<{ child: ChildProcess; firstLine: string; stderrTail: () => string }> {
  const nodeArgs = [...(options.nodeFlags ?? []), '--import', 'tsx', script, ...args];
  const child =
    options.fdLimit === undefined
      ? spawn(process.execPath, nodeArgs, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(
          'sh',
          [
            '-c',
            // Capped at the hard limit when the wanted one is above it.
            `ulimit -n ${options.fdLimit} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"`,
            process.execPath,
            ...nodeArgs,
          ],
          { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
        );
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start in time: ${stderr}`));
    }, options.startTimeoutMs ?? 30_000);
    child.stdout!.setEncoding('utf8');
    const onData = (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      // Keep draining stdout so the child never blocks on a full pipe.
      child.stdout!.resume();
      resolve(buffered.slice(0, end));
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}) before starting: ${stderr}`));
    });
  });
  return { child, firstLine, stderrTail: () => stderr };
}

/** Ends a child process: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts the mock server from source (`mock-server/src/cli.ts`, via tsx) on a free loopback port
 * in a child process, with the standby active.
 *
 * @example
 * const server = await startChildServer({ args: ['--admin'] });
 * console.log(server.info.standbyUrl, server.rssKiB());
 * await server.close();
 */
export async function startChildServer(options: ChildServerOptions = {}): Promise<ChildServer> {
  const { child, firstLine } = await spawnNodeScript(
    'mock-server/src/cli.ts',
    ['--port', '0', '--state', 'active', ...(options.args ?? [])],
    options,
  );
  const info = JSON.parse(firstLine) as ChildServerInfo;
  const pid = child.pid!;
  return {
    info,
    origin: new URL(info.mainUrl).origin,
    pid,
    rssKiB: () => readRssKiB(pid),
    cpuMs: () => readCpuMs(pid),
    close: (graceMs) => stopChild(child, graceMs),
  };
}

/** CPU time (user + system, every thread) a process has used so far, in ms (/proc, Linux). */
export function readCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are the 12th and 13th of them.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** `getconf CLK_TCK` is 100 on every Linux build Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;
