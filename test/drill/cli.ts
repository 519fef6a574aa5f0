// `npm run drill -- [options]`: one fleet drill, its report on stdout, results in test/drill/results.
import { DRILL_USAGE, parseDrillArgs } from './drill-options.js';
import { formatDrillReport } from './drill-report.js';
import { reanalyzeDrill } from './drill-results.js';
import { runDrill } from './run-drill.js';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--reanalyze') {
    if (argv.length !== 2) {
      process.stderr.write('usage: npm run drill -- --reanalyze <results/name.json>\n');
      return 2;
    }
    process.stdout.write(formatDrillReport(reanalyzeDrill(argv[1]!)));
    return 0;
  }
  let options: ReturnType<typeof parseDrillArgs>;
  try {
    options = parseDrillArgs(argv);
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
