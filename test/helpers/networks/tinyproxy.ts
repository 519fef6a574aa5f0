// A real HTTP proxy for the network tests: Debian's tinyproxy, started on a free loopback port
// with a generated configuration (optionally Basic authentication and a list of ports CONNECT
// may reach), logging to a file the tests read. Without tinyproxy the tests that need it are
// skipped, saying so (skipWithout(TINYPROXY, ...) in each file), unless REQUIRE_TOOLS=1: CI
// (.ci/run) installs it, as it installs Chromium, and requires it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { closedPort } from '../mock-licensing.js';
import { findSystemTool, installHint, TINYPROXY } from '../system-tools.js';

/** Options of {@link startTinyproxy}. */
export interface TinyproxyOptions {
  /** Require Basic authentication with this user and password (tinyproxy `BasicAuth`). */
  basicAuth?: { user: string; password: string };
  /**
   * The only ports CONNECT may reach (tinyproxy `ConnectPort`), e.g. the mock's HTTPS port.
   * Default: none listed, which tinyproxy reads as every port.
   */
  connectPorts?: number[];
}

/** A running tinyproxy. */
export interface Tinyproxy {
  /** `http://127.0.0.1:<port>`, without credentials. */
  url: string;
  /** `http://user:password@127.0.0.1:<port>` with `basicAuth`, else `url`. */
  urlWithCredentials: string;
  port: number;
  /** The lines tinyproxy has logged so far (level Info: connections, requests, CONNECTs). */
  logLines(): Promise<string[]>;
  /** Stops tinyproxy and removes its folder. */
  close(): Promise<void>;
}

/** The tinyproxy binary; throws when it is not installed. */
export function findTinyproxy(): string {
  const found = findSystemTool(TINYPROXY);
  if (!found) throw new Error(`${installHint(TINYPROXY)}: a real proxy is needed here`);
  return found;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function startOnce(options: TinyproxyOptions, dir: string): Promise<Tinyproxy | undefined> {
  const port = await closedPort();
  const logFile = join(dir, 'tinyproxy.log');
  const lines = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Timeout 30',
    'MaxClients 64',
    'Allow 127.0.0.1',
    `LogFile "${logFile}"`,
    'LogLevel Info',
    ...(options.connectPorts ?? []).map((connectPort) => `ConnectPort ${connectPort}`),
  ];
  if (options.basicAuth) {
    lines.push(`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`);
  }
  const config = join(dir, 'tinyproxy.conf');
  await writeFile(config, `${lines.join('\n')}\n`);
  let stderr = '';
  const child = spawn(findTinyproxy(), ['-d', '-c', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A test process that ends without closing it (a timeout, a crash) takes it along.
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  child.once('exit', () => process.off('exit', reap));
  // Up when it accepts connections; gone when it exited (e.g. the port was taken meanwhile).
  for (let tries = 0; tries < 200; tries++) {
    if (child.exitCode !== null) break;
    if (await canConnect(port)) {
      const url = `http://127.0.0.1:${port}`;
      const { basicAuth } = options;
      return {
        url,
        urlWithCredentials: basicAuth
          ? `http://${encodeURIComponent(basicAuth.user)}:${encodeURIComponent(basicAuth.password)}@127.0.0.1:${port}`
          : url,
        port,
        async logLines() {
          const text = await readFile(logFile, 'utf8').catch(() => '');
          return text.split('\n').filter(Boolean);
        },
        async close() {
          child.kill('SIGTERM');
          await exited(child);
        },
      };
    }
    await sleep(25);
  }
  child.kill('SIGKILL');
  await exited(child);
  if (stderr.includes('Address already in use') || stderr.includes('Could not create')) {
    return undefined;
  }
  throw new Error(`tinyproxy did not start: ${stderr || `exit code ${child.exitCode}`}`);
}

/** Starts tinyproxy on a free loopback port; see {@link TinyproxyOptions}. */
export async function startTinyproxy(options: TinyproxyOptions = {}): Promise<Tinyproxy> {
  findTinyproxy();
  const dir = await mkdtemp(join(tmpdir(), 'tinyproxy-'));
  // The free port is found first and bound by tinyproxy after: another process may take it in
  // between, hence a few tries.
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const proxy = await startOnce(options, dir);
      if (proxy) {
        return {
          ...proxy,
          async close() {
            await proxy.close();
            await rm(dir, { recursive: true, force: true });
          },
        };
      }
    }
    throw new Error('tinyproxy could not bind a free port in 3 tries');
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
