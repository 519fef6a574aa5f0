/**
 * An error the command reports as one line on stderr, exiting with `exitCode`: 2 for bad usage
 * (the user must change the command line), 1 for a failure (server, network, file system).
 */
export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: 1 | 2;

  constructor(exitCode: 1 | 2, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = exitCode;
  }
}

/** A usage error (exit code 2). */
export function usageError(message: string): CliError {
  return new CliError(2, message);
}
