import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';

const require = createRequire(import.meta.url);

/** One finding of Prism about a request or its response (the `sl-violations` header). */
export interface PrismViolation {
  /** `['request', 'query', 'after']`, `['response', 'body', 'objects', '1', 'eventReceived']`. */
  location: string[];
  message: string;
  /** `Error` or `Warning`. */
  severity: string;
  code?: string | number;
}

/** A running `prism proxy`. */
export interface PrismProxy {
  origin: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Starts Stoplight Prism (`@stoplight/prism-cli`, a dev dependency) as a validating proxy of
 * `documentFile` in front of `upstream`, without `--errors`: every request goes through, and each
 * answer carries Prism's findings in `sl-violations` (read them with {@link readViolations}).
 */
export async function startPrismProxy(documentFile: string, upstream: string): Promise<PrismProxy> {
  const port = await freePort();
  const cli = require.resolve('@stoplight/prism-cli/dist/index.js');
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, 'proxy', documentFile, upstream, '--port', String(port), '--host', '127.0.0.1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    log = `${log}${chunk}`.slice(-20_000);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    log = `${log}${chunk}`.slice(-20_000);
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited (${child.exitCode}):\n${log}`);
    try {
      // Any answer means Prism is listening (an unknown path gets Prism's own 404).
      await (await fetch(`${origin}/idp/.well-known/jwks.json`)).arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`prism did not start:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    origin,
    close: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * Prism's findings on one answer. A list too long for one header arrives cut ("Too many
 * violations!"): that throws, so a test keeps its pages small rather than losing findings.
 */
export function readViolations(res: Response): PrismViolation[] {
  const header = res.headers.get('sl-violations');
  if (header === null) return [];
  if (header.startsWith('Too many violations!')) {
    throw new Error('Prism cut its sl-violations header: keep the answer smaller');
  }
  return JSON.parse(header) as PrismViolation[];
}
