// docs/qa-recipes.md cannot rot: every drill on the page runs here, as written, with its setup
// block, against a freshly started mock server (standby active, admin on), through bash and curl;
// what it prints must be exactly the output shown under it. Without curl the drills are skipped,
// saying so (REQUIRE_TOOLS=1, set by .ci/run, fails instead).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { afterEach, describe, expect, it } from 'vitest';
import { CURL, skipWithout } from '../helpers/system-tools.js';

const PAGE = fileURLToPath(new URL('../../docs/qa-recipes.md', import.meta.url));
/** The mock's URL as the page writes it; each run puts the test mock's in its place. */
const DOC_MOCK = 'MOCK=http://127.0.0.1:8787';

interface Recipe {
  name: string;
  script: string;
  expected: string;
}

/** The setup block and every drill of the page, each drill with the output block after it. */
function readRecipes(markdown: string): { setup: string; recipes: Recipe[] } {
  const blocks = [...markdown.matchAll(/```([^\n]*)\n([\s\S]*?)```/g)].map(([, info, body]) => ({
    info: info!.trim(),
    body: body!,
  }));
  const setup = blocks.filter((block) => block.info === 'sh setup');
  if (setup.length !== 1) throw new Error('docs/qa-recipes.md needs one ```sh setup block');
  const recipes: Recipe[] = [];
  blocks.forEach((block, i) => {
    const drill = /^sh drill=(\S+)$/.exec(block.info);
    if (!drill) return;
    const output = blocks[i + 1];
    if (output?.info !== 'text') throw new Error(`drill ${drill[1]} has no \`\`\`text output`);
    recipes.push({ name: drill[1]!, script: block.body, expected: output.body });
  });
  return { setup: setup[0]!.body, recipes };
}

function runBash(script: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', () => resolve({ stdout, stderr }));
  });
}

const { setup, recipes } = readRecipes(readFileSync(PAGE, 'utf8'));

describe('docs/qa-recipes.md', () => {
  let mock: RunningServer | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it('has a setup naming the mock URL, and drills of at most five lines', () => {
    expect(setup).toContain(DOC_MOCK);
    expect(recipes.length).toBeGreaterThanOrEqual(8);
    for (const recipe of recipes) {
      expect(recipe.script.trim().split('\n').length, recipe.name).toBeLessThanOrEqual(5);
    }
    // Every drill DECISIONS names for a partial outage has a recipe.
    expect(recipes.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'idp-down',
        'standby-slow',
        'events-down',
        'main-jwks-outage',
        'captive-portal',
      ]),
    );
  });

  it
    .skipIf(skipWithout(CURL, 'the drills of test/qa-recipes/qa-recipes.test.ts'))
    .each(recipes.map((recipe) => [recipe.name, recipe] as const))(
    'runs the %s drill as written',
    async (_name, recipe) => {
      mock = await startServer({ port: 0, state: 'active', admin: true });
      // A person types the setup a while after starting the mock: its keys are made by then.
      await mock.app.deferredKeys.makeAll();
      await mock.app.signingPool.start();
      const origin = new URL(mock.info.mainUrl).origin;
      const script = `${setup.replace(DOC_MOCK, `MOCK=${origin}`)}\n${recipe.script}`;
      const { stdout, stderr } = await runBash(script);
      expect(stderr).toBe('');
      expect(stdout).toBe(recipe.expected);
    },
  );
});
