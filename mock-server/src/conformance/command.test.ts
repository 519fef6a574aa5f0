import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mutants, startMutantProxy } from '@test/helpers/conformance/mutants.js';
import { validateJunitFile, xpath } from '@test/helpers/conformance/xmllint.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChecks } from './checks.js';
import { EXIT_FAILED, EXIT_PASSED, EXIT_USAGE, runConformanceCommand } from './command.js';
import type { JsonReport } from './json-report.js';
import { startMockTarget } from './targets.js';

async function command(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runConformanceCommand(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-command-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('standby-licensing-conformance: usage', () => {
  it('--list prints every check id and section, one a line', async () => {
    const { code, stdout } = await command(['--list']);
    expect(code).toBe(EXIT_PASSED);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toEqual(allChecks.map((check) => `${check.id}\t${check.section}`));
  });

  it.each([
    [['--no-such-option']],
    [['--api-key', 'k']],
    [['--standby-url', 'ftp://example.test']],
    [['--standby-url', 'http://127.0.0.1:9', '--idp-private-key', 'key.pem']],
    [['--standby-url', 'http://127.0.0.1:9', '--propagation-timeout-ms', 'soon']],
    [['--expected-failures', '/no/such/file']],
  ])('exits 2 with the usage for %j', async (argv) => {
    const { code, stderr } = await command(argv);
    expect(code).toBe(EXIT_USAGE);
    expect(stderr).toContain('Usage: standby-licensing-conformance');
  });

  it('exits 2 for an expected-failures file naming no check', async () => {
    const file = join(dir, 'typo.txt');
    await writeFile(file, 'standby.auth.no-such-check\n');
    const { code, stderr } = await command(['--expected-failures', file]);
    expect(code).toBe(EXIT_USAGE);
    expect(stderr).toContain('line 1: "standby.auth.no-such-check" is not a check id');
  });

  it('exits 2 when the target cannot be reached, and writes a JUnit report naming it', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/standby`;
    const junit = join(dir, 'unreachable', 'report.xml');
    const { code, stderr } = await command(['--standby-url', url, '--junit', junit]);
    expect(code).toBe(EXIT_USAGE);
    expect(stderr).toContain(`--standby-url: cannot reach ${url}/enabled`);
    expect((await validateJunitFile(junit)).output).toContain('validates');
    expect(await xpath(junit, 'count(//testcase)')).toBe('1');
    expect(await xpath(junit, 'string(//testsuite/@errors)')).toBe('1');
    expect(await xpath(junit, 'string(//testcase/@name)')).toBe('target.reachable');
    expect(await xpath(junit, 'string(//testcase/error/@message)')).toBe(
      `cannot reach the target ${url}/enabled`,
    );
    expect(await xpath(junit, 'string(//testcase/error)')).toContain('ECONNREFUSED');
  });
});

describe('standby-licensing-conformance against a mutant', () => {
  const mutant = mutants['no WWW-Authenticate challenge']!;
  let mock: Awaited<ReturnType<typeof startMockTarget>>;
  let proxy: Awaited<ReturnType<typeof startMutantProxy>>;
  let targetArgs: string[];
  beforeAll(async () => {
    mock = await startMockTarget();
    proxy = await startMutantProxy(new URL(mock.target.standbyUrl!).origin, mutant);
    // The standby only, with a fixed ID token: the event checks and the ones that mint ID tokens
    // are skipped, naming what they need.
    targetArgs = [
      '--standby-url',
      `${proxy.origin}/standby`,
      '--api-key',
      mock.target.apiKey!,
      '--id-token',
      await mock.target.signIdToken!({}),
      '--service-key-hash',
      mock.target.serviceKeyHash!,
      '--allow-management',
    ];
  });
  afterAll(async () => {
    await proxy.close();
    await mock.close();
  });

  async function run(name: string, extra: string[] = []) {
    const junit = join(dir, name, 'conformance.xml');
    const json = join(dir, name, 'conformance.json');
    const result = await command([...targetArgs, '--junit', junit, '--json', json, ...extra]);
    const report = JSON.parse(await readFile(json, 'utf8')) as JsonReport;
    return { ...result, junit, report };
  }
  const ids = (report: JsonReport, status: string) =>
    report.checks.filter((check) => check.status === status).map((check) => check.id);

  it('fails exactly the broken check: exit 1, JUnit valid with one failure', async () => {
    const { code, junit, report, stdout } = await run('plain');
    expect(code, stdout).toBe(EXIT_FAILED);
    expect(ids(report, 'failed')).toEqual(mutant.breaks);
    expect(report.checks).toHaveLength(allChecks.length);
    const skipped = report.checks.filter((check) => check.status === 'skipped');
    expect(skipped.map((check) => check.id)).toEqual([
      'standby.auth.unsigned-algorithms',
      'standby.auth.bad-id-token-claims',
      'standby.auth.id-token-grace',
      // The standby's usage events are read from the event service: no --event-url here.
      ...allChecks
        .filter((check) => check.id.startsWith('standby.usage.'))
        .map((check) => check.id),
      ...allChecks.filter((check) => check.service === 'events').map((check) => check.id),
    ]);
    expect(skipped[0]?.message).toBe('needs --idp-private-key');
    expect(skipped.at(-1)?.message).toBe('needs --event-url');
    for (const check of report.checks) expect(check.ms).toBeGreaterThanOrEqual(0);
    expect((await validateJunitFile(junit)).output).toContain('validates');
    expect(await xpath(junit, 'count(//failure)')).toBe('1');
    expect(await xpath(junit, `string(//testcase[failure]/@name)`)).toBe(
      'standby.auth.missing-authorization',
    );
    expect(await xpath(junit, 'count(//skipped)')).toBe(String(skipped.length));
  });

  it('turns green (exit 0) with the failure listed in an expected-failures file', async () => {
    const file = join(dir, 'expected.txt');
    await writeFile(file, `# our gateway strips the challenge\n${mutant.breaks.join('\n')}\n`);
    const { code, junit, report } = await run('expected', ['--expected-failures', file]);
    expect(code).toBe(EXIT_PASSED);
    expect(ids(report, 'failed')).toEqual([]);
    expect(ids(report, 'expected-failure')).toEqual(mutant.breaks);
    expect(report.checks.find((check) => check.status === 'expected-failure')?.message).toBe(
      'WWW-Authenticate is ""',
    );
    expect((await validateJunitFile(junit)).output).toContain('validates');
    expect(await xpath(junit, 'count(//failure)')).toBe('0');
  });

  it('fails again (exit 1) when a listed check passes', async () => {
    const file = join(dir, 'stale.txt');
    await writeFile(file, `${mutant.breaks.join('\n')}\nstandby.status.opposite-booleans\n`);
    const { code, junit, report } = await run('stale', ['--expected-failures', file]);
    expect(code).toBe(EXIT_FAILED);
    expect(ids(report, 'failed')).toEqual(['standby.status.opposite-booleans']);
    expect(report.checks.find((check) => check.status === 'failed')?.message).toContain(
      'passed, but the expected-failures file lists it',
    );
    expect((await validateJunitFile(junit)).output).toContain('validates');
  });
});

describe('standby-licensing-conformance with no target', () => {
  it('checks a mock server it starts itself: exit 0, every check passed', async () => {
    const json = join(dir, 'mock', 'conformance.json');
    const junit = join(dir, 'mock', 'conformance.xml');
    const { code, stdout } = await command(['--json', json, '--junit', junit]);
    expect(code, stdout).toBe(EXIT_PASSED);
    expect(stdout).toContain('Checking a mock server started at http://127.0.0.1:');
    const report = JSON.parse(await readFile(json, 'utf8')) as JsonReport;
    expect(report.checks.map((check) => check.status)).toEqual(allChecks.map(() => 'passed'));
    expect((await validateJunitFile(junit)).output).toContain('validates');
    expect(await xpath(junit, 'count(//testsuite)')).toBe(
      String(new Set(allChecks.map((check) => check.section)).size),
    );
  });
});
