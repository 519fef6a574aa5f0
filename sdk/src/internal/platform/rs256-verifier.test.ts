import { generateKeyPairSync, sign } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRs256Verifier } from './rs256-verifier.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const spki = new Uint8Array(rsa.publicKey.export({ type: 'spki', format: 'der' }));
const input = new TextEncoder().encode('header.payload');
const signed = sign('sha256', input, rsa.privateKey);
const signature = new Uint8Array(signed);

describe.each([
  ['node:crypto', false],
  ['WebCrypto (no process.getBuiltinModule, as in a browser)', true],
])('createRs256Verifier with %s', (_name, hideNode) => {
  afterEach(() => vi.unstubAllGlobals());

  async function verifier() {
    if (hideNode) vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    return createRs256Verifier(spki);
  }

  it('accepts a good signature and refuses a tampered input or signature', async () => {
    const verify = await verifier();
    expect(await verify(input, signature)).toBe(true);
    expect(await verify(new TextEncoder().encode('header.payloae'), signature)).toBe(false);
    const bad = Buffer.from(signed);
    bad[10] = (bad[10] ?? 0) ^ 1;
    expect(await verify(input, bad)).toBe(false);
  });

  it('refuses a key that is not RSA', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ecSpki = new Uint8Array(ec.publicKey.export({ type: 'spki', format: 'der' }));
    if (hideNode) vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    await expect(createRs256Verifier(ecSpki)).rejects.toThrow(
      hideNode ? /./ : new TypeError('not an RSA public key'),
    );
  });
});
