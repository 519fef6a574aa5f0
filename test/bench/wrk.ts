import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What one {@link wrk} run did. */
export interface WrkResult {
  /** Responses with a 2xx status. */
  ok: number;
  /** Responses with another status. */
  non2xx: number;
  /** Connect, read, write and timeout errors together. */
  errors: number;
  /** Wall-clock length of the run, as wrk measured it, in ms. */
  wallMs: number;
  /** CPU time wrk itself used (user + system), in ms. */
  cpuMs: number;
  /** Latency percentiles in ms. */
  latencyP50Ms: number;
  latencyP99Ms: number;
}

/** Options of {@link wrk}. */
export interface WrkOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
}

// Prints the totals (and the percentiles, in µs) in one line wrk's summary does not change.
const REPORT = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK_RESULT %d %d %d %d %d %d\\n", summary.requests, e.status,
    e.connect + e.read + e.write + e.timeout, summary.duration,
    latency:percentile(50), latency:percentile(99)))
end`;

/**
 * Loads `url` with wrk (Debian's `wrk` package: a C load generator on one thread, which takes a
 * fraction of autocannon's CPU from the cores the server also needs) and reports what it did,
 * its own CPU time included (bash's `times` after wrk exits). Throws with the install hint when
 * wrk is missing.
 *
 * @example
 * const r = await wrk({ url, headers, connections: 32, durationS: 2 });
 * console.log(r.ok / (r.wallMs / 1000), 'requests/s');
 */
export async function wrk(options: WrkOptions): Promise<WrkResult> {
  const args = ['-t1', `-c${options.connections}`, `-d${options.durationS}s`];
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    args.push('-H', `${name}: ${value}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'standby-bench-wrk-'));
  const script = join(dir, 'report.lua');
  await writeFile(script, REPORT);
  let stdout: string;
  try {
    ({ stdout } = await run(
      'bash',
      ['-c', 'wrk "$@" || exit $?; times', 'wrk', ...args, '-s', script, options.url],
      { maxBuffer: 1 << 20 },
    ));
  } catch (error) {
    if ((error as { code?: number }).code === 127) {
      throw new Error('bench row 1 needs wrk on the PATH (Debian: apt-get install wrk)');
    }
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const result = /^WRK_RESULT (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$/m.exec(stdout);
  // `times` prints the shell's own times, then its children's: `0m0.140s 0m0.052s`.
  const times = [...stdout.matchAll(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/gm)].at(-1);
  if (!result || !times) throw new Error(`unexpected wrk output:\n${stdout}`);
  const [requests, non2xx, errors, durationUs, p50Us, p99Us] = result.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const seconds = (m: string, s: string) => Number(m) * 60 + Number(s);
  return {
    ok: requests - non2xx,
    non2xx,
    errors,
    wallMs: durationUs / 1000,
    cpuMs: (seconds(times[1]!, times[2]!) + seconds(times[3]!, times[4]!)) * 1000,
    latencyP50Ms: p50Us / 1000,
    latencyP99Ms: p99Us / 1000,
  };
}
