// Platform fence: base64url decoding with Node's Buffer where it exists (several times faster
// than atob-based decoders on the lease-verification hot path), else jose's decoder.
import type * as NodeBuffer from 'node:buffer';
import { base64url } from 'jose';

const processRef = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
  .process;
const nodeBuffer = processRef?.getBuiltinModule?.('node:buffer') as typeof NodeBuffer | undefined;

/**
 * Decodes base64url text (JWS segments). The Node path ignores characters outside the alphabet
 * where jose's throws; callers verify signatures over the text itself, so that changes nothing.
 */
export const decodeBase64url: (text: string) => Uint8Array = nodeBuffer
  ? (text) => nodeBuffer.Buffer.from(text, 'base64url')
  : (text) => base64url.decode(text);
