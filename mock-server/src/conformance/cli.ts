import { runConformanceCommand } from './command.js';

// The `standby-licensing-conformance` bin (docs/conformance.md). An unexpected crash exits 2:
// the run could not check anything, which is not a conformance failure.
runConformanceCommand(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `standby-licensing-conformance: ${String((err as Error)?.stack ?? err)}\n`,
    );
    process.exit(2);
  },
);
