/**
 * packed.ts: proves the published conformance kit (`npm run conformance:packed`, run by .ci/run
 * after `npm run build`): the packed mock-server package, installed in a fresh project, runs
 * `npx standby-licensing-conformance` with the JUnit, JSON and exit status docs/conformance.md
 * promises.
 *
 * Steps:
 *   1. `npm pack`s the mock server and installs the tarball into a fresh temp project.
 *   2. `npx standby-licensing-conformance --junit --json` with no target: it starts its own mock
 *      server and passes (exit 0); the JUnit validates against the Ant/Jenkins schema (xmllint).
 *   3. Starts the installed `standby-mock-server` and a mutant in front of it (the real server
 *      behind a proxy that serves leases as text/plain) and points the bin at the mutant: exit 1,
 *      exactly the mutant's checks failed, the JUnit valid with those failures.
 *   4. The same run with those ids in an expected-failures file: exit 0; with a passing check
 *      added to the file: exit 1.
 *   5. An unreachable target (its JUnit one errored testcase naming it) and an unknown option:
 *      exit 2.
 *
 * Assumptions: the mock server is built (`npm run build`); the npm registry is reachable (the
 * JUnit is checked with xmllint-wasm, a dev dependency). Environment: KEEP_CONFORMANCE_TMP=1 keeps the temp folder.
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { mutants, startMutantProxy } from '../helpers/conformance/mutants.js';
import { validateJunitFile, xpath } from '../helpers/conformance/xmllint.js';
import { installConsumerProject, packWorkspaces } from '../helpers/runtime/consumer-project.js';
import { machineNpm } from '../helpers/runtime/node-floor.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

interface JsonReport {
  checks: Array<{ id: string; status: string; message?: string }>;
}

interface BinRun {
  code: number | null;
  output: string;
}

/** Runs the installed bin through npx in `project`; resolves its exit status and output. */
function runBin(project: string, args: string[]): Promise<BinRun> {
  const npm = machineNpm();
  return new Promise((resolve, reject) => {
    execFile(
      npm.file,
      [...npm.args, 'exec', '--no', '--', 'standby-licensing-conformance', ...args],
      { cwd: project, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        if (code === null) reject(error);
        else resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

function expect(condition: unknown, message: string, run?: BinRun): asserts condition {
  if (!condition) {
    if (run) console.error(run.output);
    throw new Error(message);
  }
}

async function readReport(file: string): Promise<JsonReport> {
  return JSON.parse(await readFile(file, 'utf8')) as JsonReport;
}

async function expectValidJunit(file: string, failures: number): Promise<void> {
  const result = await validateJunitFile(file);
  expect(result.valid, `${file} does not validate against JUnit.xsd:\n${result.output}`);
  const counted = await xpath(file, 'count(//failure)');
  expect(counted === String(failures), `${file}: ${counted} <failure>, expected ${failures}`);
}

/**
 * Starts the installed `standby-mock-server` (its bin link, started directly so a signal reaches
 * it) and resolves its printed URLs.
 */
async function startInstalledMock(
  project: string,
): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const child = spawn(
    join(project, 'node_modules', '.bin', 'standby-mock-server'),
    ['--port', '0', '--state', 'active', '--api-key', 'conformance-api-key'],
    { cwd: project, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  return { child, info: JSON.parse(line) as Record<string, string> };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

async function main(): Promise<void> {
  const temp = await mkdtemp(join(tmpdir(), 'standby-conformance-'));
  let mock: ChildProcess | undefined;
  let proxy: Awaited<ReturnType<typeof startMutantProxy>> | undefined;
  try {
    const tarballs = join(temp, 'tarballs');
    await mkdir(tarballs);
    const packed = await packWorkspaces(repoRoot, ['@standby-licensing/mock-server'], tarballs);
    const project = join(temp, 'consumer');
    await mkdir(project);
    const install = await installConsumerProject(project, packed, machineNpm());
    if (!install.ok) {
      console.error(install.output);
      throw new Error('npm install of the packed mock server failed');
    }
    console.log(`conformance:packed: installed ${packed.map((p) => p.split('/').at(-1))}`);

    // 2. No target: the bin starts its own mock server.
    const fresh = await runBin(project, ['--junit', 'fresh/junit.xml', '--json', 'fresh/r.json']);
    expect(fresh.code === 0, `against a fresh mock: exit ${fresh.code}, expected 0`, fresh);
    const freshReport = await readReport(join(project, 'fresh/r.json'));
    expect(
      freshReport.checks.length > 0 && freshReport.checks.every((c) => c.status === 'passed'),
      'against a fresh mock: not every check passed',
      fresh,
    );
    await expectValidJunit(join(project, 'fresh/junit.xml'), 0);
    console.log(
      `conformance:packed: fresh mock: exit 0, ${freshReport.checks.length} checks passed, JUnit valid`,
    );

    // 3. A mutant in front of the installed mock server.
    const started = await startInstalledMock(project);
    mock = started.child;
    const { idpUrl, standbyUrl } = started.info as { idpUrl: string; standbyUrl: string };
    const mutant = mutants['leases served as text/plain']!;
    proxy = await startMutantProxy(new URL(standbyUrl).origin, mutant);
    const token = async (body: unknown) => {
      const res = await fetch(`${idpUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return ((await res.json()) as { id_token: string }).id_token;
    };
    const target = [
      '--standby-url',
      `${proxy.origin}/standby`,
      '--event-url',
      `${proxy.origin}/events`,
      '--api-key',
      'conformance-api-key',
      '--id-token',
      await token({ sub: 'conformance' }),
      '--event-read-token',
      await token({ sub: 'reader', claims: { '*': true } }),
      '--allow-management',
    ];
    const broken = await runBin(project, [
      ...target,
      '--junit',
      'mutant/junit.xml',
      '--json',
      'mutant/r.json',
    ]);
    expect(broken.code === 1, `against the mutant: exit ${broken.code}, expected 1`, broken);
    const { checks } = await readReport(join(project, 'mutant/r.json'));
    const failed = checks.filter((c) => c.status === 'failed').map((c) => c.id);
    // This run gives no --service-key-hash and no --idp-private-key: the checks that need one
    // are skipped, whatever the mutant breaks (two of its usage checks among them).
    const skipped = new Set(checks.filter((c) => c.status === 'skipped').map((c) => c.id));
    const breaks = mutant.breaks.filter((id) => !skipped.has(id));
    expect(
      breaks.length > 0 && JSON.stringify(failed) === JSON.stringify(breaks),
      `against the mutant: failed ${JSON.stringify(failed)}, expected ${JSON.stringify(breaks)}`,
      broken,
    );
    await expectValidJunit(join(project, 'mutant/junit.xml'), breaks.length);
    console.log(
      `conformance:packed: mutant: exit 1, exactly its ${failed.length} checks failed, JUnit valid`,
    );

    // 4. Expected failures: green, then red again when a listed check passes.
    await writeFile(
      join(project, 'expected.txt'),
      `# leases as text/plain\n${failed.join('\n')}\n`,
    );
    const pinned = await runBin(project, [
      ...target,
      '--expected-failures',
      'expected.txt',
      '--junit',
      'pinned/junit.xml',
    ]);
    expect(pinned.code === 0, `with expected failures: exit ${pinned.code}, expected 0`, pinned);
    await expectValidJunit(join(project, 'pinned/junit.xml'), 0);
    await writeFile(
      join(project, 'stale.txt'),
      `${failed.join('\n')}\nstandby.status.opposite-booleans\n`,
    );
    const stale = await runBin(project, [...target, '--expected-failures', 'stale.txt']);
    expect(
      stale.code === 1,
      `with a stale expected failure: exit ${stale.code}, expected 1`,
      stale,
    );
    console.log(
      'conformance:packed: expected failures: exit 0; with a passing check listed: exit 1',
    );

    // 5. Usage errors and unreachable targets (its JUnit: one errored testcase naming it).
    const unreachableJunit = join(project, 'reports', 'unreachable.xml');
    const unreachable = await runBin(project, [
      '--standby-url',
      `http://127.0.0.1:${await closedPort()}/standby`,
      '--junit',
      unreachableJunit,
    ]);
    expect(unreachable.code === 2, `unreachable target: exit ${unreachable.code}`, unreachable);
    await expectValidJunit(unreachableJunit, 0);
    const errored = await xpath(unreachableJunit, 'string(//testcase/error/@message)');
    expect(errored.startsWith('cannot reach the target http://127.0.0.1:'), errored, unreachable);
    const usage = await runBin(project, ['--no-such-option']);
    expect(usage.code === 2, `unknown option: exit ${usage.code}`, usage);
    console.log('conformance:packed: unreachable target and unknown option: exit 2');
  } finally {
    await proxy?.close();
    if (mock) {
      mock.kill('SIGTERM');
      if (mock.exitCode === null) await once(mock, 'exit');
    }
    if (process.env.KEEP_CONFORMANCE_TMP === '1') console.log(`conformance:packed: kept ${temp}`);
    else await rm(temp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
