// The SDK README's testing section, as a QA engineer meets it (DECISIONS.md "The testing kit
// without a server"): its vitest file is copied, unchanged, into a fresh project that installs the
// packed SDK tarball (`npm pack`), msw and vitest from the registry, and runs green there, with
// service URLs on hosts that do not resolve (`.invalid`) and no server. TypeScript checks the file
// against the package's published types. A setup file counts the RSA keys the suite makes; the
// suite's time and that count are printed as figures, never asserted.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureSdkBuilt } from '../helpers/browser/ensure-sdk-built.js';
import { installConsumerProject, packWorkspaces } from '../helpers/runtime/consumer-project.js';
import { machineNpm } from '../helpers/runtime/node-floor.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const FILE = 'outage-drills.test.ts';

/** The version of `name` this repository installed, so the fresh project gets it from npm's cache. */
function installedVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

/** The first ```ts block of the README's "Testing your integration" section. */
function readmeSuite(readme: string): string {
  const section = readme.slice(readme.indexOf('\n## Testing your integration\n'));
  const match = /\n```ts\n([\s\S]*?)\n```\n/.exec(section);
  if (!match) throw new Error('the testing section of sdk/README.md has no ```ts block');
  return `${match[1]}\n`;
}

// Counts WebCrypto key generations in the test process and writes the count when it ends.
const COUNT_KEYS = `import { writeFileSync } from 'node:fs';
import { afterAll } from 'vitest';
let made = 0;
const generateKey = crypto.subtle.generateKey.bind(crypto.subtle);
crypto.subtle.generateKey = (...args) => { made += 1; return generateKey(...args); };
afterAll(() => writeFileSync(process.env.KEYS_FILE, String(made)));
`;

let temp: string;
let project: string;

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'standby-readme-suite-'));
  project = join(temp, 'qa-project');
  await mkdir(project);
  await ensureSdkBuilt(repoRoot);
  const [tarball] = await packWorkspaces(repoRoot, ['@standby-licensing/sdk'], temp);
  // Prefer npm's cache: the repository installed these very versions.
  await writeFile(join(project, '.npmrc'), 'prefer-offline=true\n');
  const install = await installConsumerProject(
    project,
    [
      tarball!,
      `msw@${installedVersion('msw')}`,
      `vitest@${installedVersion('vitest')}`,
      `typescript@${installedVersion('typescript')}`,
    ],
    machineNpm(),
  );
  if (!install.ok) throw new Error(`npm install failed:\n${install.output}`);
  const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ ...manifest, type: 'module' }, null, 2)}\n`,
  );
  const readme = await readFile(join(repoRoot, 'sdk/README.md'), 'utf8');
  await writeFile(join(project, FILE), readmeSuite(readme));
  await writeFile(join(project, 'count-keys.js'), COUNT_KEYS);
  await writeFile(
    join(project, 'vitest.config.js'),
    "export default { test: { setupFiles: ['./count-keys.js'] } };\n",
  );
}, 300_000);

afterAll(async () => {
  if (temp && process.env.KEEP_README_SUITE !== '1')
    await rm(temp, { recursive: true, force: true });
});

it('type-checks against the packed package’s types', async () => {
  const tsc = join(project, 'node_modules/typescript/bin/tsc');
  const args = [
    '--noEmit',
    '--strict',
    '--skipLibCheck',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--lib',
    'es2022,dom',
    FILE,
  ];
  const result = await run(process.execPath, [tsc, ...args], { cwd: project }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  expect(result).toBe('');
}, 120_000);

it('runs green in a fresh project, with no server and hosts that do not resolve', async () => {
  const keysFile = join(temp, 'keys-made');
  const report = join(temp, 'report.json');
  const vitest = join(project, 'node_modules/vitest/vitest.mjs');
  const started = performance.now();
  await run(process.execPath, [vitest, 'run', FILE, '--reporter=json', `--outputFile=${report}`], {
    cwd: project,
    env: { ...process.env, KEYS_FILE: keysFile },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`the README suite failed:\n${error.stdout}\n${error.stderr}`);
  });
  const wallMs = performance.now() - started;
  const json = JSON.parse(await readFile(report, 'utf8')) as {
    numTotalTests: number;
    numPassedTests: number;
    testResults: Array<{ startTime: number; endTime: number }>;
  };
  const keysMade = Number(await readFile(keysFile, 'utf8'));
  expect(json.numPassedTests).toBe(json.numTotalTests);
  expect(json.numTotalTests).toBeGreaterThanOrEqual(16);
  // Five RSA keys (two roots, two signing keys, the ID-token issuer), once for the whole suite.
  expect(keysMade).toBe(5);
  const [file] = json.testResults;
  console.log(
    `README suite: ${json.numPassedTests} tests, file ${Math.round(file!.endTime - file!.startTime)} ms, ` +
      `\`vitest run\` ${Math.round(wallMs)} ms wall, ${keysMade} RSA keys made`,
  );
}, 180_000);
