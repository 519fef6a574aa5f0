/**
 * run.ts: the runtime matrix (`npm run test:runtime`, run by `.ci/run` after `npm run build`).
 * The published packages, as a consumer installs them, on every runtime apps ship on
 * (runtimes.ts: the Node of the `engines` floor, the newest Node 22, 24 and 26, Bun 1, Deno 2)
 * and in a Node single executable application.
 *
 * Steps:
 *   1. Installs each runtime from its npm package into a cache folder (node_modules/.cache/
 *      standby-runtimes/<package>@<version>/, or $RUNTIME_CACHE) unless it is there already,
 *      and asks the registry whether a newer version of each major is out (a hint, never a
 *      failure).
 *   2. `npm pack`s the SDK and the mock server and installs both tarballs (plus msw, the testing
 *      kit's peer) into a fresh temp project with the machine's npm run by the floor Node and
 *      `--engine-strict`: any EBADENGINE fails the run (docs/decisions/0013).
 *   3. Starts the mock server on the floor Node from its CommonJS entry (start-mock.cjs) and a
 *      real proxy (Debian's tinyproxy); writes the roots with the SDK's `embed-root` bin on the
 *      floor Node, as .cjs and .mjs modules.
 *   4. On each runtime, runs app.cjs and app.mjs (each loading the packages in its format, then
 *      app-steps.mjs): checkout from main, verify, failover to the standby (seen on the SDK's
 *      diagnostics channels too), machineId(), a file lease store restored offline, a signed event
 *      written and its feed read, the testing kit; then each again through tinyproxy (the CommonJS
 *      app with HTTP_PROXY, the ES module app with the `proxy` option), checking that tinyproxy
 *      carried the checkout. On each
 *      Node, the mock server's bin runs its conformance kit.
 *   5. Builds a single executable (sea-app.mjs, bundled by esbuild, injected with postject) on the
 *      Node that runtimes.ts marks, and runs it: checkout, failover, restore with every service
 *      down (the mock's journal shows no request), checkout through tinyproxy.
 *   6. Prints the results as tables, with each step's time.
 *
 * Assumptions: Linux x64; the npm registry is reachable (the first run; later ones find the
 * runtimes in the cache); both packages are built; tinyproxy is installed.
 * Environment: KEEP_RUNTIME_TMP=1 keeps the temp folder; RUNTIME_CACHE=<dir> caches the runtimes
 * elsewhere; RUNTIME_ONLY=<text> runs only the rows whose name contains it (the floor always
 * runs: it hosts the mock server).
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startTinyproxy, type Tinyproxy } from '../helpers/networks/tinyproxy.js';
import { installConsumerProject, packWorkspaces } from '../helpers/runtime/consumer-project.js';
import { newestOnRegistry } from '../helpers/runtime/newest-version.js';
import { machineNpm, packageNodeFloor } from '../helpers/runtime/node-floor.js';
import { type InstalledRuntime, installRuntimePackage } from '../helpers/runtime/runtime-cache.js';
import { buildSingleExecutable } from '../helpers/runtime/single-executable.js';
import { type AppFormat, type Runtime, runtimeMatrix } from './runtimes.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * The msw the apps install. msw's own CommonJS build requires ES-only packages from 2.11.3 on
 * (until-async, rettime), so on Node before 20.19 `require('msw')` works up to 2.11.2 only; the
 * testing kit's README says so.
 */
const MSW_FOR_COMMONJS_BEFORE_20_19 = '2.11.2';

/** The steps app-steps.mjs reports, in its order (the columns of the results table). */
const APP_STEPS = [
  'load',
  'checkout',
  'verify',
  'failover',
  'machineId',
  'restore',
  'feed',
  'testing kit',
];

interface AppReport {
  runtime: string;
  format: AppFormat;
  mode: string;
  steps: Array<{ name: string; ms: number; detail: string }>;
  failed?: string;
  error?: string;
}

interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** One row of the results: a runtime with what ran on it. */
interface RowResult {
  runtime: Runtime;
  install?: InstalledRuntime;
  apps: Array<{ format: AppFormat; report: AppReport; wallMs: number; proxyMs: number }>;
  conformanceMs?: number;
  failures: string[];
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Runs a program to its end (at most a minute); never rejects for its exit code. */
function runProgram(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<ProcessResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: options.env,
        // Each app takes seconds; one that hangs (a handle left open) is a failure.
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

/** The last line of `stdout` that parses as a JSON object, or undefined. */
function lastJsonLine<T>(stdout: string): T | undefined {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value === 'object' && value !== null) return value as T;
    } catch {
      // not the report line
    }
  }
  return undefined;
}

/**
 * The environment of every program the matrix runs: the machine's, without any proxy variable
 * (a run with a proxy adds its own), plus `extra`.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(https?|all|no)_proxy$/i.test(name)) delete env[name];
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

/** Text table with a header row, columns padded to their widest cell. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

async function startMock(
  node: string,
  project: string,
  eventKeyFile: string,
): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const child = spawn(node, [join(project, 'start-mock.cjs'), eventKeyFile], {
    cwd: project,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const first = once(lines, 'line') as Promise<[string]>;
  const exited = once(child, 'exit').then(() => {
    throw new Error(`the mock server exited before its start line:\n${stderr}`);
  });
  const [line] = await Promise.race([first, exited]);
  return { child, info: JSON.parse(line) as Record<string, string> };
}

async function admin(adminUrl: string, method: string, path: string): Promise<unknown> {
  const response = await fetch(`${adminUrl}${path}`, { method });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} /admin${path}: HTTP ${response.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** Lines tinyproxy logged since `since` that carried a request to the mock server. */
async function proxiedRequests(proxy: Tinyproxy, since: number, mockHost: string) {
  const lines = (await proxy.logLines()).slice(since);
  return lines.filter(
    (line) =>
      /Request \(file descriptor \d+\): /.test(line) &&
      (line.includes(`http://${mockHost}/main/authz/.jwt`) || line.includes(`CONNECT ${mockHost}`)),
  );
}

async function main(): Promise<void> {
  const runStarted = performance.now();
  const sdkFloor = packageNodeFloor(join(repoRoot, 'sdk/package.json'));
  const mockFloor = packageNodeFloor(join(repoRoot, 'mock-server/package.json'));
  if (sdkFloor !== mockFloor) {
    // One process runs the mock server on the floor, and the apps load both packages.
    throw new Error(`the SDK's floor (${sdkFloor}) and the mock server's (${mockFloor}) differ`);
  }
  const only = process.env.RUNTIME_ONLY;
  const matrix = runtimeMatrix(sdkFloor).filter(
    (runtime, i) => i === 0 || only === undefined || runtime.name.includes(only),
  );
  const floor = matrix[0]!;
  const cacheRoot =
    process.env.RUNTIME_CACHE ?? join(repoRoot, 'node_modules', '.cache', 'standby-runtimes');
  const npm = machineNpm();
  const temp = await mkdtemp(join(tmpdir(), 'standby-runtime-'));
  const results: RowResult[] = matrix.map((runtime) => ({ runtime, apps: [], failures: [] }));
  const binaries = new Map<Runtime, string>();
  let mock: ChildProcess | undefined;
  let proxy: Tinyproxy | undefined;
  try {
    // 1. The runtimes (two installs at a time: the machine has two cores) and the newest check.
    let started = performance.now();
    const newest = Promise.all(
      matrix.map((runtime) => newestOnRegistry(runtime.packageName, runtime.major, npm)),
    );
    const queue = [...results];
    await Promise.all(
      [0, 1].map(async () => {
        for (let row = queue.shift(); row; row = queue.shift()) {
          row.install = await installRuntimePackage(row.runtime, cacheRoot, npm);
          const { stdout } = await runProgram(row.install.binary, ['--version'], {
            cwd: temp,
            env: cleanEnv(),
          });
          if (!row.runtime.versionPattern.test(stdout.trim())) {
            throw new Error(`${row.install.binary} says ${stdout.trim()}, not ${row.runtime.name}`);
          }
          binaries.set(row.runtime, row.install.binary);
        }
      }),
    );
    const cachedCount = results.filter((row) => row.install?.cached).length;
    console.log(
      `runtime: ${matrix.length} runtimes ready in ${seconds(performance.now() - started)} (${cachedCount} from the cache ${cacheRoot})`,
    );

    // 2. The packed packages in a consumer project, installed on the floor.
    started = performance.now();
    const tarballs = join(temp, 'tarballs');
    await mkdir(tarballs);
    const packed = await packWorkspaces(
      repoRoot,
      ['@standby-licensing/sdk', '@standby-licensing/mock-server'],
      tarballs,
    );
    const project = join(temp, 'consumer');
    await mkdir(project);
    const floorNode = binaries.get(floor)!;
    const install = await installConsumerProject(
      project,
      [...packed, `msw@${MSW_FOR_COMMONJS_BEFORE_20_19}`],
      machineNpm(floorNode),
    );
    if (!install.ok) {
      console.error(install.output);
      throw new Error(
        install.badEngine.length > 0
          ? `a consumer on Node ${floor.version} gets EBADENGINE:\n${install.badEngine.join('\n')}`
          : `npm install --engine-strict failed on Node ${floor.version}`,
      );
    }
    for (const file of ['app.cjs', 'app.mjs', 'app-steps.mjs', 'start-mock.cjs', 'sea-app.mjs']) {
      await copyFile(here(`./${file}`), join(project, file));
    }
    console.log(
      `runtime: npm pack, then npm install --engine-strict of ${packed.length} tarballs + msw@${MSW_FOR_COMMONJS_BEFORE_20_19} on ${floor.name}: no EBADENGINE (${seconds(performance.now() - started)})`,
    );

    // 3. The mock server, the proxy and the roots.
    started = performance.now();
    const eventKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const eventKeyFile = join(temp, 'event-key.pem');
    const eventPublicFile = join(temp, 'event-key.pub.pem');
    await writeFile(eventKeyFile, eventKey.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await writeFile(eventPublicFile, eventKey.publicKey.export({ type: 'spki', format: 'pem' }));
    const mockServer = await startMock(floorNode, project, eventPublicFile);
    mock = mockServer.child;
    const info = mockServer.info as {
      mainUrl: string;
      standbyUrl: string;
      eventUrl: string;
      idpUrl: string;
      apiKey: string;
    };
    const adminUrl = info.mainUrl.replace(/\/main$/, '/admin');
    const mockHost = new URL(info.mainUrl).host;
    proxy = await startTinyproxy();
    await embedRoots(floorNode, project, info);
    for (const [path, type] of [
      ['console', 'text/html'],
      ['console.js', 'text/javascript'],
      ['console.css', 'text/css'],
    ] as const) {
      // The QA console's files ship beside the bundles: found from the CommonJS build.
      const response = await fetch(`${adminUrl}/${path}`);
      const body = await response.text();
      if (response.status !== 200 || !response.headers.get('content-type')?.startsWith(type)) {
        throw new Error(`GET /admin/${path}: HTTP ${response.status}, ${body.slice(0, 200)}`);
      }
    }
    console.log(
      `runtime: mock server on ${floor.name} (CommonJS entry, QA console served), tinyproxy, roots from embed-root (${seconds(performance.now() - started)})`,
    );

    // 4. Every app on every runtime.
    const denoDir = join(cacheRoot, 'deno-dir');
    for (const row of results) {
      const { runtime } = row;
      const binary = binaries.get(runtime)!;
      for (const format of runtime.formats) {
        const script = format === 'cjs' ? 'app.cjs' : 'app.mjs';
        const work = join(temp, 'work', `${runtime.name.replace(/\W+/g, '-')}-${format}`);
        const env = cleanEnv({
          STANDBY_RUNTIME_MOCK: JSON.stringify(info),
          STANDBY_RUNTIME_EVENT_KEY: eventKeyFile,
          STANDBY_RUNTIME_WORK: work,
          DENO_DIR: denoDir,
          DENO_NO_UPDATE_CHECK: '1',
        });
        const args = [...runtime.scriptArgs, script];
        const result = await runProgram(binary, [...args, 'main'], { cwd: project, env });
        await admin(adminUrl, 'DELETE', '/faults');
        const report = lastJsonLine<AppReport>(result.stdout);
        if (!report || report.failed || result.code !== 0) {
          row.failures.push(
            `${format}: ${report?.failed ? `step ${report.failed}: ${report.error}` : `exit ${result.code}`}\n${result.stdout}${result.stderr}`,
          );
          continue;
        }
        const before = (await proxy.logLines()).length;
        // The CommonJS app gets the proxy from HTTP_PROXY, the ES module app from the client's
        // `proxy` option (on Bun and Deno that is their own fetch option, not the variable).
        const viaProxy = await runProgram(binary, [...args, 'proxy'], {
          cwd: project,
          env: {
            ...env,
            ...(format === 'cjs'
              ? { HTTP_PROXY: proxy.url }
              : { STANDBY_RUNTIME_PROXY: proxy.url }),
          },
        });
        const proxyReport = lastJsonLine<AppReport>(viaProxy.stdout);
        const carried = await proxiedRequests(proxy, before, mockHost);
        if (!proxyReport || proxyReport.failed || viaProxy.code !== 0) {
          row.failures.push(
            `${format} through the proxy: ${proxyReport?.error ?? `exit ${viaProxy.code}`}\n${viaProxy.stdout}${viaProxy.stderr}`,
          );
        } else if (carried.length === 0) {
          const how = format === 'cjs' ? 'HTTP_PROXY was set' : 'the proxy option was set';
          row.failures.push(`${format}: ${how}, but tinyproxy carried no checkout`);
        }
        report.steps.push(...(proxyReport?.steps.filter((s) => s.name === 'proxy') ?? []));
        row.apps.push({ format, report, wallMs: result.ms, proxyMs: viaProxy.ms });
      }
      if (runtime.conformance) {
        const conformance = await runProgram(
          binary,
          [
            join(project, 'node_modules/@standby-licensing/mock-server/dist/conformance.js'),
            '--json',
            join(temp, `conformance-${runtime.version}.json`),
          ],
          { cwd: project, env: cleanEnv() },
        );
        row.conformanceMs = conformance.ms;
        if (conformance.code !== 0) {
          row.failures.push(
            `conformance kit: exit ${conformance.code}\n${conformance.stdout}${conformance.stderr}`,
          );
        }
      }
      const status = row.failures.length === 0 ? 'ok' : 'FAILED';
      console.log(
        `runtime: ${runtime.name}: ${status} (${row.apps.map((a) => `${a.format} ${seconds(a.wallMs + a.proxyMs)}`).join(', ')}${row.conformanceMs ? `, conformance ${seconds(row.conformanceMs)}` : ''})`,
      );
    }

    // 5. The single executable.
    const seaRow = results.find((row) => row.runtime.singleExecutable);
    let seaSummary: string[] | undefined;
    if (seaRow) {
      seaSummary = await singleExecutable(
        binaries.get(seaRow.runtime)!,
        seaRow,
        project,
        temp,
        info,
        adminUrl,
        proxy,
        mockHost,
      );
    }

    // 6. The results.
    printResults(results, seaSummary);
    const newer = (await newest)
      .map((version, i) => ({ version, runtime: matrix[i]! }))
      .filter(({ version, runtime }) => version !== undefined && version !== runtime.version);
    for (const { version, runtime } of newer) {
      if (runtime === floor) continue;
      console.log(
        `runtime: note: ${runtime.packageName}@${version} is out; pin it in test/runtime/runtimes.ts (and the README's Set up table)`,
      );
    }
    const failed = results.filter((row) => row.failures.length > 0);
    for (const row of failed) {
      console.error(`\n${row.runtime.name} FAILED:\n${row.failures.join('\n')}`);
    }
    console.log(`runtime: the matrix took ${seconds(performance.now() - runStarted)}`);
    if (failed.length > 0) {
      throw new Error(
        `the runtime matrix failed on ${failed.map((r) => r.runtime.name).join(', ')}`,
      );
    }
  } finally {
    await proxy?.close();
    if (mock && mock.exitCode === null) {
      mock.kill('SIGTERM');
      await once(mock, 'exit');
    }
    if (process.env.KEEP_RUNTIME_TMP === '1') console.log(`runtime: kept ${temp}`);
    else await rm(temp, { recursive: true, force: true });
  }
}

/**
 * Writes both roots an app embeds with the SDK's bin on the floor, as CommonJS and as ES
 * modules: a new standby signing key's root, and the mock main's (trust on first use,
 * development only).
 */
async function embedRoots(
  node: string,
  project: string,
  info: { mainUrl: string; standbyUrl: string; idpUrl: string; apiKey: string },
): Promise<void> {
  const manifest = JSON.parse(
    await readFile(join(project, 'node_modules/@standby-licensing/sdk/package.json'), 'utf8'),
  ) as { bin: Record<string, string> };
  const bin = join(
    project,
    'node_modules/@standby-licensing/sdk',
    manifest.bin['standby-licensing']!,
  );
  const token = (
    (await (
      await fetch(`${info.idpUrl}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ sub: 'runtime-matrix' }),
      })
    ).json()) as { id_token: string }
  ).id_token;
  const embed = async (args: string[], env: Record<string, string> = {}) => {
    const result = await runProgram(node, [bin, 'embed-root', '--force', ...args], {
      cwd: project,
      env: cleanEnv(env),
    });
    if (result.code !== 0) throw new Error(`embed-root ${args.join(' ')}:\n${result.stderr}`);
  };
  // The API key in the environment, as docs/embed-root.md advises.
  await embed(['--standby-url', info.standbyUrl, '--new-key', '--out', 'roots/standby-root.cjs'], {
    STANDBY_LICENSING_API_KEY: info.apiKey,
  });
  await embed([
    '--standby-url',
    info.standbyUrl,
    '--id-token',
    token,
    '--out',
    'roots/standby-root.mjs',
  ]);
  const jwks = `${info.mainUrl}/.well-known/jwks.json`;
  for (const out of ['roots/main-root.cjs', 'roots/main-root.mjs']) {
    await embed(['--jwks-url', jwks, '--out', out, '--export-name', 'mainRoot']);
  }
}

/**
 * Builds the single executable around sea-app.mjs on `node` and runs it: checkout from main,
 * checkout with main down (failover), restore with every service down (the mock's journal shows
 * that no request arrived), checkout with HTTP_PROXY (tinyproxy carried it). Returns the lines
 * of its summary; failures go into `row`.
 */
async function singleExecutable(
  node: string,
  row: RowResult,
  project: string,
  temp: string,
  info: { mainUrl: string; standbyUrl: string; idpUrl: string },
  adminUrl: string,
  proxy: Tinyproxy,
  mockHost: string,
): Promise<string[]> {
  const outDir = join(temp, 'sea');
  await mkdir(outDir);
  const built = await buildSingleExecutable({
    entry: join(project, 'sea-app.mjs'),
    outDir,
    name: 'licensed-tool',
    node,
    execArgv: ['--use-env-proxy'],
  });
  const env = cleanEnv({
    LICENSING_MAIN_URL: info.mainUrl,
    LICENSING_STANDBY_URL: info.standbyUrl,
    LICENSING_IDP_URL: info.idpUrl,
    LICENSING_STORE: join(outDir, 'leases.json'),
  });
  const runs: Array<{ what: string; ms: number; result: Record<string, unknown> }> = [];
  const tool = async (what: string, args: string[], extraEnv: Record<string, string> = {}) => {
    const result = await runProgram(built.executable, args, {
      cwd: outDir,
      env: { ...env, ...extraEnv },
    });
    const answer = lastJsonLine<Record<string, unknown>>(result.stdout) ?? {};
    runs.push({ what, ms: result.ms, result: answer });
    if (result.code !== 0 || answer.sea !== true) {
      row.failures.push(
        `single executable, ${what}: exit ${result.code}\n${result.stdout}${result.stderr}`,
      );
    }
    return answer;
  };
  const expect = (what: string, ok: boolean, answer: unknown) => {
    if (!ok) row.failures.push(`single executable, ${what}: ${JSON.stringify(answer)}`);
  };

  const fromMain = await tool('checkout', ['checkout', 'ItemA']);
  expect('checkout', fromMain.servedBy === 'main', fromMain);
  await admin(adminUrl, 'POST', '/scenarios/main-down');
  const failedOver = await tool('failover', ['checkout', 'ItemB']).finally(() =>
    admin(adminUrl, 'DELETE', '/faults'),
  );
  expect('failover', failedOver.servedBy === 'standby' && failedOver.failovers === 1, failedOver);

  for (const scenario of ['main-down', 'standby-down', 'idp-down']) {
    await admin(adminUrl, 'POST', `/scenarios/${scenario}`);
  }
  const { lastSeq } = (await admin(adminUrl, 'GET', '/requests')) as { lastSeq: number };
  const restored = await tool('restore offline', ['restore']).finally(() =>
    admin(adminUrl, 'DELETE', '/faults'),
  );
  // Every request that reached a service meanwhile (the admin calls of this harness aside).
  const requests = (
    (await admin(adminUrl, 'GET', `/requests?after=${lastSeq}`)) as {
      entries: Array<{ service: string; method: string; path: string }>;
    }
  ).entries
    .filter((entry) => entry.service !== 'admin')
    .map((entry) => `${entry.method} /${entry.service}${entry.path}`);
  expect(
    'restore offline',
    JSON.stringify(restored.items) ===
      JSON.stringify([
        ['ItemA', 'main'],
        ['ItemB', 'standby'],
      ]) && requests.length === 0,
    { ...restored, requestsDuringRestore: requests },
  );

  const before = (await proxy.logLines()).length;
  const viaProxy = await tool('through tinyproxy', ['checkout', 'ItemA'], {
    HTTP_PROXY: proxy.url,
  });
  const carried = await proxiedRequests(proxy, before, mockHost);
  expect('through tinyproxy', viaProxy.servedBy === 'main' && carried.length > 0, {
    ...viaProxy,
    proxiedRequests: carried.length,
  });

  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return [
    `single executable (node ${row.runtime.version}, SEA): ${mb(built.executableBytes)} (node ${mb(built.nodeBytes)} + app bundle ${(built.bundleBytes / 1024).toFixed(0)} kB); built in ${seconds(built.ms.bundle + built.ms.blob + built.ms.inject)} (esbuild ${seconds(built.ms.bundle)}, blob ${seconds(built.ms.blob)}, postject ${seconds(built.ms.inject)})`,
    ...runs.map(
      ({ what, ms, result }) =>
        `  ${what.padEnd(18)} ${seconds(ms).padStart(6)}  ${JSON.stringify(result)}`,
    ),
  ];
}

function printResults(results: RowResult[], seaSummary: string[] | undefined): void {
  const rows: string[][] = [];
  for (const row of results) {
    for (const app of row.apps) {
      const ms = (name: string) => {
        const found = app.report.steps.find((s) => s.name === name);
        return found ? String(found.ms) : '-';
      };
      rows.push([
        row.runtime.name,
        app.format,
        ...APP_STEPS.map(ms),
        ms('proxy'),
        seconds(app.wallMs + app.proxyMs),
      ]);
    }
    if (row.apps.length === 0) {
      rows.push([row.runtime.name, 'FAILED', ...APP_STEPS.map(() => '-'), '-', '-']);
    }
  }
  console.log(
    '\nruntime: every step on every runtime (ms; wall: both processes, start-up included)',
  );
  console.log(table(['runtime', 'app', ...APP_STEPS, 'proxy', 'wall'], rows));
  console.log('\nruntime: per runtime (s)');
  console.log(
    table(
      ['runtime', 'install', 'apps', 'conformance', 'total', 'result', 'role'],
      results.map((row) => {
        const apps = row.apps.reduce((sum, app) => sum + app.wallMs + app.proxyMs, 0);
        const install = row.install?.ms ?? 0;
        return [
          row.runtime.name,
          row.install ? `${seconds(install)}${row.install.cached ? ' (cached)' : ''}` : '-',
          seconds(apps),
          row.conformanceMs === undefined ? '-' : seconds(row.conformanceMs),
          seconds(install + apps + (row.conformanceMs ?? 0)),
          row.failures.length === 0 ? 'ok' : 'FAILED',
          row.runtime.role,
        ];
      }),
    ),
  );
  if (seaSummary) console.log(`\n${seaSummary.join('\n')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
