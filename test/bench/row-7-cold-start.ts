import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { ratioOf, summarize } from './bench-helpers.js';
import type { BenchLine, BenchRow } from './bench-result.js';
import { REPO_ROOT, stopChild } from './child-server.js';

/** Target of row 7 (DECISIONS.md): the built bin answers within this of being started, in ms. */
export const COLD_START_TARGET_MS = 500;
/** Target of row 7 (issue 31): the bin's median at most this many times the bare server's. */
export const COLD_START_MAX_RATIO = 3;

const BIN = 'mock-server/dist/cli.js';
const BARE = fileURLToPath(new URL('./bare-start-server.mjs', import.meta.url));

/**
 * CPU time a process's threads have used, in ms, from each thread's `schedstat` (nanoseconds;
 * `/proc/<pid>/stat` counts in 10 ms ticks, too coarse for a start of 50-300 ms). Threads that
 * already ended are not counted: none has at a server's first answer.
 */
function readThreadsCpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
  }
  return ns / 1e6;
}

/** One timed start: when the line came, when the first answer came (ms from the spawn). */
interface Start {
  lineMs: number;
  answerMs: number;
  /** CPU time the process had used (every thread) when its first answer arrived, in ms. */
  cpuMs: number;
  /** The built bin only: when its first ID token (the issuer key made) came. */
  tokenMs?: number;
}

/** How a server under test is started and asked. */
interface Subject {
  label: string;
  args: string[];
  /** The URL of the first request, from the start line. */
  firstUrl(line: Record<string, string>): string;
  /** Also time the first ID token (`POST /idp/token`) after the first answer. */
  token?: boolean;
}

/** GET or POST over a fresh connection; resolves with the status once the body has arrived. */
function ask(url: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: body === undefined ? 'GET' : 'POST',
        agent: false,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Spawns `node <args>`, waits for its first stdout line, then times its first answer. */
async function timeStart(subject: Subject): Promise<Start> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, subject.args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(() => reject(new Error(`${subject.label}: no start line`)), 60_000);
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        buffered += chunk;
        const end = buffered.indexOf('\n');
        if (end < 0) return;
        clearTimeout(timer);
        resolve(buffered.slice(0, end));
      });
      child.once('exit', (code) => reject(new Error(`${subject.label} exited (${code})`)));
    });
    const lineMs = performance.now() - started;
    const info = JSON.parse(line) as Record<string, string>;
    const status = await ask(subject.firstUrl(info));
    const answerMs = performance.now() - started;
    const cpuMs = readThreadsCpuMs(child.pid!);
    if (status !== 200) throw new Error(`${subject.label}: first answer ${status}`);
    if (!subject.token) return { lineMs, answerMs, cpuMs };
    const minted = await ask(`${info.idpUrl}/token`, '{"sub":"bench"}');
    if (minted !== 200) throw new Error(`${subject.label}: first ID token ${minted}`);
    return { lineMs, answerMs, cpuMs, tokenMs: performance.now() - started };
  } finally {
    await stopChild(child);
  }
}

const median = (values: number[]) => summarize(values).p50;

/** `{ ratio }` when both figures exist. */
function withRatio(ours: number, reference: number): { ratio?: number } {
  const ratio = ratioOf(ours, reference);
  return ratio === undefined ? {} : { ratio };
}

/**
 * Row 7: cold start. The median time from spawning the process to its first successful answer,
 * over several starts, of the built bin in memory (`node mock-server/dist/cli.js --port 0`,
 * first request `GET /idp/.well-known/openid-configuration`), against a bare `node:http` server
 * started the same way (test/bench/bare-start-server.mjs) in the same run, starts interleaved.
 * The same from source through tsx (what `npm run mock-server` does) is reported beside it, and
 * the bin's first ID token (its issuer key made after listening).
 */
export const coldStartRow: BenchRow = {
  name: 'cold-start',
  id: 7,
  title: 'cold start: built bin vs bare node:http, time to the first answer',
  async run({ quick, log }) {
    if (!existsSync(`${REPO_ROOT}${BIN}`)) {
      throw new Error(`${BIN} is missing: run \`npm run build\` first`);
    }
    const discovery = (info: Record<string, string>) =>
      `${info.idpUrl}/.well-known/openid-configuration`;
    const bin: Subject = {
      label: 'bin',
      args: [BIN, '--port', '0'],
      firstUrl: discovery,
      token: true,
    };
    const bare: Subject = { label: 'bare', args: [BARE], firstUrl: (info) => `${info.url}/` };
    const source: Subject = {
      label: 'source',
      args: ['--import', 'tsx', 'mock-server/src/cli.ts', '--port', '0'],
      firstUrl: discovery,
    };
    const rounds = quick ? 3 : 9;
    const sourceEvery = quick ? 3 : 2;
    const results: Record<string, Start[]> = { bin: [], bare: [], source: [] };
    // One start of each first, unmeasured: the file system cache is then warm for every subject.
    for (const subject of [bin, bare]) await timeStart(subject);
    for (let round = 0; round < rounds; round++) {
      for (const subject of round % 2 === 0 ? [bin, bare] : [bare, bin]) {
        results[subject.label]!.push(await timeStart(subject));
      }
      if (round % sourceEvery === 0) results.source!.push(await timeStart(source));
      log(
        `round ${round + 1}/${rounds}: bin ${results.bin!.at(-1)!.answerMs.toFixed(0)} ms, bare ${results.bare!.at(-1)!.answerMs.toFixed(0)} ms`,
      );
    }
    const answers = (label: string) => results[label]!.map((start) => start.answerMs);
    const binMs = median(answers('bin'));
    const bareMs = median(answers('bare'));
    const sourceMs = median(answers('source'));
    const tokenMs = median(results.bin!.map((start) => start.tokenMs!));
    const spread = (label: string) => {
      const { min, max } = summarize(answers(label));
      return `${min.toFixed(0)}-${max.toFixed(0)}`;
    };
    const lines: BenchLine[] = [
      {
        row: '7',
        metric: 'ms to the first answer, built bin (median)',
        ours: binMs,
        unit: 'ms',
        reference: bareMs,
        referenceLabel: 'bare node:http started the same way',
        ...withRatio(binMs, bareMs),
        target: `median <= ${COLD_START_TARGET_MS} ms, ratio <= ${COLD_START_MAX_RATIO}`,
        met:
          binMs <= COLD_START_TARGET_MS &&
          (ratioOf(binMs, bareMs) ?? Number.POSITIVE_INFINITY) <= COLD_START_MAX_RATIO,
        details: {
          starts: rounds,
          'bin range ms': spread('bin'),
          'bare range ms': spread('bare'),
          'bin start line ms': median(results.bin!.map((start) => start.lineMs)),
          'bare start line ms': median(results.bare!.map((start) => start.lineMs)),
          // CPU does not stretch with the machine's load as wall time does: read it on a busy host.
          'bin cpu ms': median(results.bin!.map((start) => start.cpuMs)),
          'bare cpu ms': median(results.bare!.map((start) => start.cpuMs)),
          'cpu ratio':
            median(results.bin!.map((start) => start.cpuMs)) /
            median(results.bare!.map((start) => start.cpuMs)),
        },
      },
      {
        row: '7 source',
        metric: 'ms to the first answer, from source via tsx (median)',
        ours: sourceMs,
        unit: 'ms',
        reference: bareMs,
        referenceLabel: 'bare node:http started the same way',
        ...withRatio(sourceMs, bareMs),
        details: { starts: results.source!.length, 'range ms': spread('source') },
      },
      {
        row: '7 token',
        metric: 'ms to the first ID token, built bin (issuer key made after listening)',
        ours: tokenMs,
        unit: 'ms',
        reference: binMs,
        referenceLabel: 'the bin\u2019s first answer',
        ...withRatio(tokenMs, binMs),
      },
    ];
    return lines;
  },
};
