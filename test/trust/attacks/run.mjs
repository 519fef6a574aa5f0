#!/usr/bin/env node
// The nine attacks of issue 28, tried from outside the test suite against the built packages and
// a real mock server. Packs the SDK and the mock server (`npm pack -w sdk -w mock-server`, which
// builds both), installs the tarballs into a fresh temporary project (with @peculiar/x509 and
// reflect-metadata for the test PKI), runs every NN-*.mjs script here against that project one
// at a time (they start the packed mock server's bin themselves) and prints one table row per
// verdict line: HOLDS (the promise held), BROKEN (the attack got through), N/A (the SDK lacks
// the API the attack needs) or ERROR.
//
// Usage (Node 20.11 or later; npm reaches the registry for the two test PKI packages):
//   node test/trust/attacks/run.mjs                      the packages of this checkout
//   node test/trust/attacks/run.mjs --repo <checkout>    another checkout's packages (e.g. a
//                                                        `git worktree` of an older commit,
//                                                        after `npm install` there)
//   node test/trust/attacks/run.mjs --only 01,07 --keep  some scripts; keep the temp project
//   node test/trust/attacks/run.mjs --project <dir>      reuse a project made with --keep
// One script alone: ATTACK_PROJECT=<project> node test/trust/attacks/07-hostile-key-sets.mjs
// Not part of `npm test`. 07 serves a 150 MB body and 2 000 keys: the scripts run one at a time.
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    project: { type: 'string' },
    only: { type: 'string' },
    keep: { type: 'boolean' },
    timeout: { type: 'string' },
  },
});
const repo = resolve(values.repo ?? join(here, '../../..'));
const scriptTimeoutMs = Number(values.timeout ?? 600_000);

async function makeProject() {
  const temp = await mkdtemp(join(tmpdir(), 'standby-attacks-'));
  const packs = join(temp, 'packs');
  const project = join(temp, 'project');
  await mkdir(packs);
  await mkdir(project);
  process.stderr.write(`attacks: npm pack -w sdk -w mock-server in ${repo} (builds both)\n`);
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--pack-destination', packs, '-w', 'sdk', '-w', 'mock-server'],
    { cwd: repo, maxBuffer: 64 * 1024 * 1024 },
  );
  const tarballs = JSON.parse(stdout).map((entry) => join(packs, entry.filename));
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'attacks', private: true, version: '1.0.0', type: 'module' }, null, 2)}\n`,
  );
  process.stderr.write(`attacks: npm install of ${tarballs.length} tarballs into ${project}\n`);
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      ...tarballs,
      '@peculiar/x509@^2.2.0',
      'reflect-metadata@^0.2.2',
    ],
    { cwd: project, maxBuffer: 64 * 1024 * 1024 },
  );
  return { temp, project };
}

/** Runs one script; resolves its verdict lines, exit code and the tail of its stderr. */
function runScript(file, project) {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(here, file)], {
      cwd: project,
      env: { ...process.env, ATTACK_PROJECT: project },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      process.stderr.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), scriptTimeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const lines = stdout
        .split('\n')
        .map((line) => /^\[(HOLDS|BROKEN|N\/A|ERROR)\] (.*)$/.exec(line))
        .filter(Boolean)
        .map(([, status, text]) => ({ status, text }));
      done({ lines, code: code ?? signal, stderr, ms: performance.now() - started });
    });
  });
}

const made = values.project ? { project: resolve(values.project) } : await makeProject();
const only = values.only?.split(',').map((n) => n.trim().padStart(2, '0'));
const scripts = (await readdir(here))
  .filter((file) => /^\d\d-.*\.mjs$/.test(file))
  .filter((file) => !only || only.includes(file.slice(0, 2)))
  .sort();
const { stdout: commit } = await run('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).catch(
  () => ({ stdout: 'unknown' }),
);

const rows = [];
for (const file of scripts) {
  process.stderr.write(`attacks: ${file}\n`);
  const result = await runScript(file, made.project);
  const finding = file.replace(/\.mjs$/, '');
  if (result.lines.length === 0 || result.code !== 0) {
    const why = result.stderr.trim().split('\n').at(-1) ?? '';
    result.lines.push({ status: 'ERROR', text: `exited ${result.code}: ${why}` });
  }
  for (const line of result.lines) rows.push({ finding, ...line });
}

const width = Math.max(...rows.map((row) => row.finding.length));
console.log(`attacks on ${repo} at ${commit.trim()} (packed sdk and mock-server)`);
for (const row of rows) {
  console.log(`${row.finding.padEnd(width)}  ${row.status.padEnd(6)}  ${row.text}`);
}
if (made.temp && !values.keep) await rm(made.temp, { recursive: true, force: true });
else if (made.temp) console.log(`project kept: ${made.project}`);
process.exitCode = rows.some((row) => row.status === 'ERROR') ? 1 : 0;
