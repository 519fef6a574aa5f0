import { afterEach, describe, expect, it, vi } from 'vitest';

const text = 'header.payload~with/odd+bytes\u00ff';
const encoded = Buffer.from(text, 'utf8').toString('base64url');

describe.each([
  ['node:buffer', false],
  ['jose (no process.getBuiltinModule, as in a browser)', true],
])('decodeBase64url with %s', (_name, hideNode) => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  async function load() {
    // The platform is picked when the module loads: hide Node first, then import it fresh.
    vi.resetModules();
    if (hideNode) vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    const { decodeBase64url } = await import('./base64url.js');
    return decodeBase64url;
  }

  it('decodes base64url into the original bytes', async () => {
    const decode = await load();
    const bytes = decode(encoded);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(bytes)).toBe(text);
    expect(decode('')).toHaveLength(0);
  });

  it('uses Buffer only when Node is there', async () => {
    const decode = await load();
    expect(Buffer.isBuffer(decode(encoded))).toBe(!hideNode);
  });
});
