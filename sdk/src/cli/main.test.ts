import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));

function spawnCli(args: string[]) {
  return spawnSync(tsx, ['sdk/src/cli/main.ts', ...args], { cwd: root, encoding: 'utf8' });
}

describe('standby-licensing entry point', () => {
  it('runs embed-root --help with exit code 0', () => {
    const result = spawnCli(['embed-root', '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage:\n {2}standby-licensing embed-root --standby-url/);
  });

  it('exits 2 with usage on stderr for a bad command line', () => {
    const result = spawnCli(['embed-root', '--pem']);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/standby-licensing embed-root: .*--pem/);
  });
});
