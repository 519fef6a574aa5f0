import { CliError } from './cli-error.js';
import { type CliIo, processIo } from './cli-io.js';
import { embedRoot } from './embed-root.js';
import { standbyUsage } from './standby-usage.js';

export const USAGE = `Usage: standby-licensing <command> [options]

Commands:
  embed-root    Write a module (.ts, .js, .cjs, .json or .pem) embedding a root certificate
  usage         Summarise what the standby granted (from the event service), per consumer and item

Run \`standby-licensing <command> --help\` for a command's options.
`;

/**
 * Runs the `standby-licensing` command with `argv` (without node and the script path) and
 * resolves its exit code: 0 done, 1 failed, 2 bad usage. Never throws.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2));
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      (command === undefined ? io.stderr : io.stdout)(USAGE);
      return command === undefined ? 2 : 0;
    }
    if (command === 'embed-root') return await embedRoot(rest, io);
    if (command === 'usage') return await standbyUsage(rest, io);
    io.stderr(`standby-licensing: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr(`standby-licensing ${command}: ${error.message}\n`);
      if (error.exitCode === 2)
        io.stderr(`Run \`standby-licensing ${command} --help\` for usage.\n`);
      return error.exitCode;
    }
    io.stderr(
      `standby-licensing ${command}: unexpected error: ${String((error as Error)?.stack ?? error)}\n`,
    );
    return 1;
  }
}
