/** What the command touches outside itself, injectable so tests can run it in-process. */
export interface CliIo {
  /** Writes to standard output. */
  stdout(text: string): void;
  /** Writes to standard error. */
  stderr(text: string): void;
  /** HTTP client. Default: the global `fetch`. */
  fetch: typeof fetch;
  /** Environment variables (for the API key). Default: `process.env`. */
  env: Readonly<Record<string, string | undefined>>;
  /** Current time, for the generated module's header. Default: `new Date()`. */
  now(): Date;
}

/** The process's real I/O. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    fetch: (input, init) => fetch(input, init),
    env: process.env,
    now: () => new Date(),
  };
}
