import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { allChecks } from './checks.js';
import { parseExpectedFailures } from './expected-failures.js';
import { toJsonReport } from './json-report.js';
import { toJunitXml, toUnreachableJunitXml } from './junit-report.js';
import { type ConformanceTarget, runConformance, runPassed } from './runner.js';
import { startMockTarget, withSigners } from './targets.js';
import { formatReport } from './text-report.js';

/** Exit status: every check passed or failed as expected. */
export const EXIT_PASSED = 0;
/** Exit status: a check failed (or passed while listed as an expected failure). */
export const EXIT_FAILED = 1;
/** Exit status: a usage error, or a target that cannot be reached. */
export const EXIT_USAGE = 2;

export const USAGE = `Usage: standby-licensing-conformance [options]
       npm run conformance -- [options]          (from a clone of the repository)

With no --standby-url and no --event-url, starts the mock server on a free port and checks it
(every check, management included). Against a deployment, only what the options allow runs (the
rest is skipped, naming the options it needs); nothing changes its state unless
--allow-management is given.

Target:
  --standby-url <url>               standby base URL
  --api-key <key>                   standby management API key
  --id-token <jwt>                  a valid ID token for the standby
  --service-key-hash <hex>          a ServiceKeyHash the standby accepts
  --idp-private-key <pem file>      key of a trusted issuer: enables the ID-token checks
  --idp-key-id <kid>                kid for tokens signed with --idp-private-key
  --issuer <iss> --client-id <id>   claims for tokens signed with --idp-private-key (required
                                    with it)
  --event-url <url>                 event service base URL
  --event-read-token <jwt>          a read JWT with "*": true
  --event-reader-private-key <file> a trusted reader key: enables the read-claim checks
  --event-writer-private-key <file> a trusted writer key (events are written as signed JWS)
  --allow-management                run state-changing checks (enable/disable, keys, event writes)
  --propagation-timeout-ms <n>      wait for enable/disable to take effect (default 10000)

Reports:
  --list                            print every check's id and protocol section, then exit
  --junit <file>                    write JUnit XML (one testsuite per section)
  --json <file>                     write { "checks": [{ id, section, status, message?, ms }] }
  --expected-failures <file>        check ids known to fail, one a line (# comments): their
                                    failure does not fail the run; a listed check that passes does
  --help                            show this help

Exit status: 0 every check passed or failed as expected; 1 any other failure; 2 a usage error or
a target that cannot be reached (--junit then holds one errored testcase naming the target).

Every check, what it needs, and CI examples:
https://github.com/standby-licensing/standby-licensing/blob/main/docs/conformance.md
`;

/** Where the command writes its console output. */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** A usage error: exit 2 with the message and the usage text. */
class UsageError extends Error {
  override name = 'UsageError';
}

/** A target URL that gives no HTTP answer: exit 2, and a JUnit report saying so. */
class UnreachableTarget extends UsageError {
  override name = 'UnreachableTarget';
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(message);
  }
}

function readKey(file: string, option: string): KeyObject {
  try {
    return createPrivateKey(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${option} ${file}: ${(err as Error).message}`);
  }
}

function readText(file: string, option: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${option} ${file}: ${(err as Error).message}`);
  }
}

function baseUrl(value: string, option: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${option} must be an absolute http(s) URL, got ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${option} must be an http(s) URL, got ${value}`);
  }
  return value.replace(/\/+$/, '');
}

function parseCommandLine(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'standby-url': { type: 'string' },
        'api-key': { type: 'string' },
        'id-token': { type: 'string' },
        'service-key-hash': { type: 'string' },
        'idp-private-key': { type: 'string' },
        'idp-key-id': { type: 'string' },
        issuer: { type: 'string' },
        'client-id': { type: 'string' },
        'event-url': { type: 'string' },
        'event-read-token': { type: 'string' },
        'event-reader-private-key': { type: 'string' },
        'event-writer-private-key': { type: 'string' },
        'allow-management': { type: 'boolean' },
        'propagation-timeout-ms': { type: 'string' },
        list: { type: 'boolean' },
        junit: { type: 'string' },
        json: { type: 'string' },
        'expected-failures': { type: 'string' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

type Values = ReturnType<typeof parseCommandLine>;

/** Options that describe a deployment: meaningless (a usage error) without one of its URLs. */
const TARGET_OPTIONS = [
  'api-key',
  'id-token',
  'service-key-hash',
  'idp-private-key',
  'idp-key-id',
  'issuer',
  'client-id',
  'event-read-token',
  'event-reader-private-key',
  'event-writer-private-key',
  'allow-management',
  'propagation-timeout-ms',
] as const;

/** The deployment target the options describe. */
function targetFrom(values: Values): ConformanceTarget {
  const base: ConformanceTarget = { allowManagement: values['allow-management'] ?? false };
  if (values['standby-url']) base.standbyUrl = baseUrl(values['standby-url'], '--standby-url');
  if (values['event-url']) base.eventUrl = baseUrl(values['event-url'], '--event-url');
  if (values['api-key']) base.apiKey = values['api-key'];
  if (values['id-token']) base.idToken = values['id-token'];
  if (values['service-key-hash']) base.serviceKeyHash = values['service-key-hash'];
  if (values['event-read-token']) base.readToken = values['event-read-token'];
  const timeout = values['propagation-timeout-ms'];
  if (timeout !== undefined) {
    if (!/^[0-9]+$/.test(timeout)) {
      throw new UsageError(`--propagation-timeout-ms must be a whole number, got ${timeout}`);
    }
    base.propagationTimeoutMs = Number(timeout);
  }
  const idpKeyFile = values['idp-private-key'];
  if (idpKeyFile && (!values.issuer || !values['client-id'])) {
    throw new UsageError('--idp-private-key needs --issuer and --client-id');
  }
  return withSigners(base, {
    ...(idpKeyFile ? { idpKey: readKey(idpKeyFile, '--idp-private-key') } : {}),
    ...(values['idp-key-id'] ? { idpKeyId: values['idp-key-id'] } : {}),
    ...(values.issuer ? { issuer: values.issuer } : {}),
    ...(values['client-id'] ? { clientId: values['client-id'] } : {}),
    ...(values['event-reader-private-key']
      ? { readerKey: readKey(values['event-reader-private-key'], '--event-reader-private-key') }
      : {}),
    ...(values['event-writer-private-key']
      ? { writerKey: readKey(values['event-writer-private-key'], '--event-writer-private-key') }
      : {}),
  });
}

/** Throws a UsageError naming each base URL that gives no HTTP answer at all within 10 s. */
async function ensureReachable(target: ConformanceTarget): Promise<void> {
  const probes: Array<[string, string | undefined]> = [
    ['--standby-url', target.standbyUrl && `${target.standbyUrl}/enabled`],
    ['--event-url', target.eventUrl && `${target.eventUrl}/get/conformance-probe`],
  ];
  for (const [option, url] of probes) {
    if (!url) continue;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      await res.body?.cancel();
    } catch (err) {
      const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new UnreachableTarget(url, `${option}: cannot reach ${url} (${cause})`);
    }
  }
}

function readExpectedFailures(file: string | undefined): Set<string> {
  if (file === undefined) return new Set();
  const text = readText(file, '--expected-failures');
  try {
    return parseExpectedFailures(text, new Set(allChecks.map((check) => check.id)));
  } catch (err) {
    throw new UsageError(`--expected-failures ${file}: ${(err as Error).message}`);
  }
}

async function writeReport(file: string, contents: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, contents);
}

/**
 * The `standby-licensing-conformance` command (and `npm run conformance`): parses `argv`, runs the
 * checks against the target (or a mock server started in-process), prints the report, writes the
 * `--junit` and `--json` files and resolves the exit status (0, 1 or 2).
 *
 * @example
 * process.exitCode = await runConformanceCommand(process.argv.slice(2), {
 *   stdout: (text) => process.stdout.write(text),
 *   stderr: (text) => process.stderr.write(text),
 * });
 */
export async function runConformanceCommand(
  argv: readonly string[],
  io: CommandIo,
): Promise<number> {
  let close = async () => {};
  let junitFile: string | undefined;
  try {
    const values = parseCommandLine(argv);
    junitFile = values.junit;
    if (values.help) {
      io.stdout(USAGE);
      return EXIT_PASSED;
    }
    if (values.list) {
      io.stdout(allChecks.map((check) => `${check.id}\t${check.section}\n`).join(''));
      return EXIT_PASSED;
    }
    const expectedFailures = readExpectedFailures(values['expected-failures']);
    let target: ConformanceTarget;
    if (values['standby-url'] === undefined && values['event-url'] === undefined) {
      const stray = TARGET_OPTIONS.find((option) => values[option] !== undefined);
      if (stray) {
        throw new UsageError(`--${stray} is for a deployment: give --standby-url or --event-url`);
      }
      const mock = await startMockTarget();
      target = mock.target;
      close = mock.close;
      io.stdout(`Checking a mock server started at ${target.standbyUrl}\n`);
    } else {
      target = targetFrom(values);
      await ensureReachable(target);
    }
    const started = new Date();
    const results = await runConformance(target, allChecks, { expectedFailures });
    io.stdout(`${formatReport(results)}\n`);
    if (values.junit) await writeReport(values.junit, toJunitXml(results, { timestamp: started }));
    if (values.json) {
      await writeReport(values.json, `${JSON.stringify(toJsonReport(results), null, 2)}\n`);
    }
    return runPassed(results) ? EXIT_PASSED : EXIT_FAILED;
  } catch (err) {
    if (err instanceof UnreachableTarget) {
      // A CI report step then shows why nothing was checked, instead of "no report found".
      if (junitFile) await writeReport(junitFile, toUnreachableJunitXml(err.url, err.message));
      io.stderr(`standby-licensing-conformance: ${err.message}\n`);
      return EXIT_USAGE;
    }
    if (err instanceof UsageError) {
      io.stderr(`standby-licensing-conformance: ${err.message}\n\n${USAGE}`);
      return EXIT_USAGE;
    }
    throw err;
  } finally {
    await close();
  }
}
