// The `standby-licensing` command (Node only; tsup builds it to dist/cli.js with a shebang).
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2));
