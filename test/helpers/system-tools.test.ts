import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findSystemTool, type SystemTool, skipWithout } from './system-tools.js';

describe('system tools', () => {
  let dir: string;
  let tool: SystemTool;
  const absent: SystemTool = { name: 'no-such-tool', debianPackage: 'no-such-package' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'system-tools-'));
    await writeFile(join(dir, 'fake-tool'), '#!/bin/sh\n');
    await chmod(join(dir, 'fake-tool'), 0o755);
    await writeFile(join(dir, 'not-executable'), '');
    tool = { name: 'fake-tool', debianPackage: 'fake-package' };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('finds a tool on the PATH, or at one of its own paths', () => {
    expect(findSystemTool(tool, { PATH: `/nowhere:${dir}` })).toBe(join(dir, 'fake-tool'));
    expect(findSystemTool({ ...tool, paths: ['/nowhere/x', join(dir, 'fake-tool')] }, {})).toBe(
      join(dir, 'fake-tool'),
    );
    expect(findSystemTool({ ...tool, name: 'not-executable' }, { PATH: dir })).toBeUndefined();
    expect(findSystemTool(absent, { PATH: dir })).toBeUndefined();
  });

  it('runs the tests when the tool is there', () => {
    expect(skipWithout(tool, 'x', { PATH: dir, REQUIRE_TOOLS: '1' })).toBe(false);
  });

  it('skips with one line naming the Debian package when it is not', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect(skipWithout(absent, 'the drills', { PATH: dir })).toBe(true);
      expect(warn).toHaveBeenCalledOnce();
      const [line] = warn.mock.calls[0] as [string];
      expect(line).not.toContain('\n');
      expect(line).toContain('SKIPPING the drills');
      expect(line).toContain('apt-get install no-such-package');
      expect(line).toContain('REQUIRE_TOOLS=1');
    } finally {
      warn.mockRestore();
    }
  });

  it('fails instead with REQUIRE_TOOLS=1', () => {
    expect(() => skipWithout(absent, 'the drills', { PATH: dir, REQUIRE_TOOLS: '1' })).toThrow(
      /REQUIRE_TOOLS=1 but no-such-tool is not installed \(Debian: apt-get install no-such-package\)/,
    );
  });
});
