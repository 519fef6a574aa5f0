import { afterEach, describe, expect, it, vi } from 'vitest';

const text = 'header.payload~with/odd+bytes\u00ff';
const encoded = Buffer.from(text, 'utf8').toString('base64url');

describe.each([
  ['node:buffer', false],
  ['atob (no process.getBuiltinModule, as in a browser)', true],
])('decodeStrictBase64url with %s', (_name, hideNode) => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  async function load() {
    // The platform is picked when the module loads: hide Node first, then import it fresh.
    vi.resetModules();
    if (hideNode) vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    const { decodeStrictBase64url } = await import('./base64url.js');
    return decodeStrictBase64url;
  }

  it('decodes base64url into the original bytes', async () => {
    const decode = await load();
    const bytes = decode(encoded);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(bytes)).toBe(text);
    expect(decode('')).toHaveLength(0);
    // Every length base64 can have: 4n, 4n + 2 and 4n + 3 characters.
    for (const length of [1, 2, 3, 4, 5]) {
      const bytesOfLength = new Uint8Array(length).fill(0xfb);
      const segment = Buffer.from(bytesOfLength).toString('base64url');
      expect([...(decode(segment) ?? [])]).toEqual([...bytesOfLength]);
    }
  });

  it.each([
    ['padding', `${Buffer.from('ab').toString('base64url')}=`],
    ['double padding', `${Buffer.from('a').toString('base64url')}==`],
    ['a character outside the alphabet', `${encoded}!`],
    ['whitespace', `${encoded.slice(0, 4)} ${encoded.slice(4)}`],
    ['the standard alphabet', Buffer.from([0xfb, 0xff]).toString('base64')],
    ['an impossible length (4n + 1)', 'abcde'],
    ['a dot', `${encoded.slice(0, 4)}.${encoded.slice(4)}`],
  ])('refuses %s', async (_what, segment) => {
    const decode = await load();
    expect(decode(segment)).toBeUndefined();
  });

  it('uses Buffer only when Node is there', async () => {
    const decode = await load();
    expect(Buffer.isBuffer(decode(encoded))).toBe(!hideNode);
  });
});

describe.each([
  ['node:buffer', false],
  ['btoa (no process.getBuiltinModule, as in a browser)', true],
])('encodeBase64url with %s', (_name, hideNode) => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('encodes as Buffer does, unpadded, for every length and a view into a larger buffer', async () => {
    vi.resetModules();
    if (hideNode) vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    const { encodeBase64url } = await import('./base64url.js');
    for (const length of [0, 1, 2, 3, 4, 5, 64, 1000]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + 251) % 256);
      expect(encodeBase64url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    }
    const whole = Uint8Array.from({ length: 10 }, (_, i) => 250 + i / 2);
    expect(encodeBase64url(whole.subarray(3, 8))).toBe(
      Buffer.from(whole.subarray(3, 8)).toString('base64url'),
    );
  });
});
