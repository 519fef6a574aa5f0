// The benchmark harness (`npm run bench`): runs every row (or `--only <row>`), prints one table
// and writes it as JSON to test/bench/results/latest.json. `--quick` is a short smoke run.
// Never part of `npm test`: figures depend on the machine and on what else runs on it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { formatTable, parseBenchArgs } from './bench-helpers.js';
import type { BenchLine, BenchRow } from './bench-result.js';
import { leaseThroughputRow } from './row-1-lease-throughput.js';
import { leaseVerifyRow } from './row-2-lease-verify.js';
import { failoverRow } from './row-3-failover.js';
import { eventsRow } from './row-4-events.js';
import { longPollMemoryRow } from './row-5-long-poll-memory.js';
import { bundlesRow } from './row-6-bundles.js';
import { coldStartRow } from './row-7-cold-start.js';
import { timeToLicensedRow } from './row-8-time-to-licensed.js';
import { usageSummaryRow } from './row-9-usage-summary.js';

const ROWS: BenchRow[] = [
  leaseThroughputRow,
  leaseVerifyRow,
  failoverRow,
  eventsRow,
  longPollMemoryRow,
  bundlesRow,
  coldStartRow,
  timeToLicensedRow,
  usageSummaryRow,
];

function selectRows(only: readonly string[]): BenchRow[] {
  if (only.length === 0) return ROWS;
  const picked = ROWS.filter((row) => only.includes(row.name) || only.includes(String(row.id)));
  const known = ROWS.flatMap((row) => [row.name, String(row.id)]);
  const unknown = only.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new TypeError(`Unknown row ${unknown.join(', ')}; rows: ${known.join(', ')}`);
  }
  return picked;
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const rows = selectRows(args.only);
  const t0 = performance.now();
  const log = (message: string) =>
    process.stderr.write(`[bench +${((performance.now() - t0) / 1000).toFixed(1)}s] ${message}\n`);
  const started = new Date();
  // Other work on the machine skews wall-clock figures: keep the load next to the results.
  const loadBefore = loadavg()[0]!;
  const lines: BenchLine[] = [];
  const failures: Array<{ row: string; error: string }> = [];
  for (const row of rows) {
    log(`row ${row.id} (${row.name}): ${row.title}`);
    try {
      lines.push(...(await row.run({ quick: args.quick, log })));
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`row ${row.id} failed: ${message}`);
      failures.push({ row: row.name, error: message });
    }
  }
  const machine = {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryMiB: Math.round(totalmem() / 1024 / 1024),
    loadAverage1mBefore: loadBefore,
    loadAverage1mAfter: loadavg()[0]!,
  };
  process.stdout.write(
    `\nBenchmarks (${args.quick ? 'quick' : 'full'} run, node ${machine.node}, ${machine.cpus} cores, ${machine.cpuModel}, load ${machine.loadAverage1mBefore.toFixed(2)} -> ${machine.loadAverage1mAfter.toFixed(2)})\n\n`,
  );
  process.stdout.write(`${formatTable(lines)}\n`);
  for (const line of lines) {
    if (line.details) {
      const text = Object.entries(line.details)
        .map(([key, value]) => `${key}=${typeof value === 'number' ? +value.toFixed(3) : value}`)
        .join(' ');
      process.stdout.write(`  ${line.row}: ${text}\n`);
    }
  }
  const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  const file = `${resultsDir}latest.json`;
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        startedAt: started.toISOString(),
        finishedAt: new Date().toISOString(),
        quick: args.quick,
        machine,
        lines,
        failures,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\nwritten to ${file}\n`);
  if (failures.length > 0) {
    process.stderr.write(
      `[bench] ${failures.length} row(s) failed: ${failures.map((f) => f.row).join(', ')}\n`,
    );
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
