import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { installConsumerProject, packWorkspaces } from '../helpers/runtime/consumer-project.js';
import { machineNpm } from '../helpers/runtime/node-floor.js';
import { summarize } from './bench-helpers.js';
import type { BenchLine, BenchRow } from './bench-result.js';
import { REPO_ROOT } from './child-server.js';

const run = promisify(execFile);

/** Target of row 8: the SDK's app at most this much CPU over a bare `node`, in ms. */
export const TIME_TO_LICENSED_OVER_BARE_MS = 150;

/** The scripts copied into the consumer project (test/bench/time-to-licensed/). */
const SCRIPTS = ['setup.mjs', 'app.mjs', 'app.cjs', 'bare.mjs'] as const;

/** CPU time (ms, user + sys, since the process started) at each step the script marks. */
interface Marks {
  started: number;
  imported?: number;
  client?: number;
  licensed: number;
}

/** One run: the script's marks and the wall time from the spawn to the exit. */
interface Run {
  marks: Marks;
  wallMs: number;
}

async function runScript(project: string, script: string): Promise<Run> {
  const started = performance.now();
  const { stdout } = await run(process.execPath, [script], { cwd: project, timeout: 60_000 });
  return { marks: JSON.parse(stdout) as Marks, wallMs: performance.now() - started };
}

const median = (values: number[]) => summarize(values).p50;

/**
 * The two packages' tarballs: packed from this tree, or, when `BENCH_TARBALLS` names a folder,
 * the `.tgz` files in it (e.g. packed from an older commit, to measure before and after in the
 * same hour: `npm pack -w @standby-licensing/sdk -w @standby-licensing/mock-server
 * --pack-destination <folder>` there).
 */
async function tarballs(temp: string, log: (message: string) => void): Promise<string[]> {
  const given = process.env.BENCH_TARBALLS;
  if (given) {
    const files = (await readdir(given)).filter((name) => name.endsWith('.tgz'));
    if (files.length !== 2) throw new Error(`BENCH_TARBALLS: expected 2 .tgz files in ${given}`);
    log(`installing the tarballs of ${given} in a fresh project`);
    return files.map((name) => join(given, name));
  }
  log('packing both packages and installing them in a fresh project');
  const folder = join(temp, 'tarballs');
  await mkdir(folder);
  return packWorkspaces(
    REPO_ROOT,
    ['@standby-licensing/sdk', '@standby-licensing/mock-server'],
    folder,
  );
}

/** Medians of each step's CPU (ms) over `runs`, and of the whole. */
function steps(runs: readonly Run[]) {
  const of = (pick: (marks: Marks) => number) => median(runs.map((r) => pick(r.marks)));
  return {
    licensed: of((m) => m.licensed),
    node: of((m) => m.started),
    import: of((m) => m.imported! - m.started),
    client: of((m) => m.client! - m.imported!),
    restore: of((m) => m.licensed - m.client!),
    wall: median(runs.map((r) => r.wallMs)),
  };
}

/**
 * Row 8: time to licensed at an app's start. The packed tarballs of both packages installed in a
 * fresh project (as an app gets them from npm); a plain Node app (no bundler, no loader) that
 * imports the SDK, makes a licensing client with a file lease store
 * (`@standby-licensing/sdk/node`), restores the two leases saved there offline (nothing listens
 * at the services' URLs) and checks `has()`. Figure: the process's CPU time (user + sys, every
 * thread, `process.cpuUsage()`) when `has()` answers, against a bare `node` process that does
 * nothing, medians of interleaved runs. The same app in CommonJS (`require()`, an Electron main
 * process) is reported beside it. The leases come from the packed mock server, once, before.
 */
export const timeToLicensedRow: BenchRow = {
  name: 'time-to-licensed',
  id: 8,
  title: 'time to licensed at start: import + client + offline restore() + has(), CPU vs bare node',
  async run({ quick, log }) {
    const temp = await mkdtemp(join(tmpdir(), 'standby-bench-8-'));
    try {
      const packed = await tarballs(temp, log);
      const project = join(temp, 'app');
      await mkdir(project);
      const install = await installConsumerProject(project, packed, machineNpm());
      if (!install.ok) throw new Error(`npm install of the tarballs failed:\n${install.output}`);
      for (const script of SCRIPTS) {
        await copyFile(
          fileURLToPath(new URL(`./time-to-licensed/${script}`, import.meta.url)),
          join(project, script),
        );
      }
      log('checking out two leases into the file lease store (mock server from its package)');
      await run(process.execPath, ['setup.mjs'], { cwd: project, timeout: 120_000 });
      // One unmeasured run of each: the file system cache is then warm for all of them.
      for (const script of ['bare.mjs', 'app.mjs', 'app.cjs']) await runScript(project, script);
      const rounds = quick ? 5 : 21;
      const results: Record<string, Run[]> = { bare: [], esm: [], cjs: [] };
      const subjects: Array<[string, string]> = [
        ['bare', 'bare.mjs'],
        ['esm', 'app.mjs'],
        ['cjs', 'app.cjs'],
      ];
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? subjects : [...subjects].reverse();
        for (const [label, script] of order) results[label]!.push(await runScript(project, script));
        if ((round + 1) % 5 === 0 || round + 1 === rounds) {
          log(
            `round ${round + 1}/${rounds}: esm ${results.esm!.at(-1)!.marks.licensed.toFixed(0)} ms, cjs ${results.cjs!.at(-1)!.marks.licensed.toFixed(0)} ms, bare ${results.bare!.at(-1)!.marks.licensed.toFixed(0)} ms CPU`,
          );
        }
      }
      const bare = steps(results.bare!);
      const line = (label: 'esm' | 'cjs', row: string, metric: string): BenchLine => {
        const app = steps(results[label]!);
        const over = app.licensed - bare.licensed;
        return {
          row,
          metric,
          ours: app.licensed,
          unit: 'ms',
          reference: bare.licensed,
          referenceLabel: 'bare node, CPU at its first line',
          ratio: app.licensed / bare.licensed,
          target: `<= bare + ${TIME_TO_LICENSED_OVER_BARE_MS} ms`,
          met: over <= TIME_TO_LICENSED_OVER_BARE_MS,
          details: {
            runs: rounds,
            'over bare ms': over,
            'import ms': app.import,
            'client ms': app.client,
            'restore+has ms': app.restore,
            'wall ms': app.wall,
            'bare wall ms': bare.wall,
          },
        };
      };
      return [
        line(
          'esm',
          '8',
          'CPU ms to licensed: ESM app, import + client + offline restore() + has()',
        ),
        line('cjs', '8 cjs', 'the same app in CommonJS (require), CPU ms to licensed'),
      ];
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  },
};
