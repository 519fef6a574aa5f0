import { afterEach, describe, expect, it, vi } from 'vitest';

describe.each([
  ['node:buffer', false],
  ['TextEncoder (no process.getBuiltinModule, as in a browser)', true],
])('encodeUtf8 with %s', (_name, hideNode) => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  async function load() {
    vi.resetModules();
    if (hideNode) vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    return (await import('./utf8.js')).encodeUtf8;
  }

  it('encodes text as UTF-8', async () => {
    const encode = await load();
    expect([...encode('a.b~\u00ff\u{1f511}')]).toEqual([
      ...new TextEncoder().encode('a.b~\u00ff\u{1f511}'),
    ]);
    expect(Buffer.isBuffer(encode('x'))).toBe(!hideNode);
  });
});
