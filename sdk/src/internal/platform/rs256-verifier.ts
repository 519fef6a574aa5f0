// Platform fence: on Node (and Electron's main process) RS256 signatures are checked with
// node:crypto, about 1.6x faster than WebCrypto's verify there (bench row 2); everywhere else
// with WebCrypto. node:crypto is reached through `process.getBuiltinModule` (Node >= 20.16), so
// there is no import for a browser bundler to trip over.
import type * as NodeCrypto from 'node:crypto';
/** Checks an RS256 signature (its bytes, decoded from a compact JWS) over `input`. */
export type Rs256Verify = (input: Uint8Array, signature: Uint8Array) => Promise<boolean>;

function builtin<T>(id: string): T | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process;
  return process?.getBuiltinModule?.(id) as T | undefined;
}

/**
 * Imports an RSA public key (SPKI DER) once and returns a function that verifies RS256
 * (RSASSA-PKCS1-v1_5 with SHA-256) signatures with it. Throws when the key is not RSA.
 */
export async function createRs256Verifier(spki: ArrayBuffer | Uint8Array): Promise<Rs256Verify> {
  const der = spki instanceof Uint8Array ? spki : new Uint8Array(spki);
  const node = builtin<typeof NodeCrypto>('node:crypto');
  if (node) {
    // node:crypto takes any ArrayBufferView at run time; its types say Buffer.
    const key = node.createPublicKey({ key: der as never, format: 'der', type: 'spki' });
    if (key.asymmetricKeyType !== 'rsa') throw new TypeError('not an RSA public key');
    return async (input, signature) => node.verify('sha256', input, key, signature);
  }
  const key = await globalThis.crypto.subtle.importKey(
    'spki',
    der as BufferSource,
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  return (input, signature) =>
    globalThis.crypto.subtle.verify(
      'RSASSA-PKCS1-v1_5',
      key,
      signature as BufferSource,
      input as BufferSource,
    );
}
