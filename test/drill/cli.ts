// `npm run drill -- [options]`: one fleet drill, its report on stdout, results in test/drill/results.
import { DRILL_USAGE, parseDrillArgs } from './drill-options.js';
import { formatDrillReport } from './drill-report.js';
import { runDrill } from './run-drill.js';

async function main(): Promise<number> {
  let options: ReturnType<typeof parseDrillArgs>;
  try {
    options = parseDrillArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(
      `${error instanceof Error ? error.message : String(error)}\n\n${DRILL_USAGE}`,
    );
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(DRILL_USAGE);
    return 0;
  }
  const t0 = performance.now();
  const log = (line: string) =>
    process.stderr.write(`[drill +${((performance.now() - t0) / 1000).toFixed(0)}s] ${line}\n`);
  const result = await runDrill(options, { log });
  process.stdout.write(formatDrillReport(result));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `drill failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
