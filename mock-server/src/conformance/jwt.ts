import { sign as cryptoSign, type KeyObject } from 'node:crypto';

/** Decoded parts of a compact JWS, without verification. */
export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  signingInput: string;
  signature: Uint8Array;
}

function decodeBase64Url(segment: string): Uint8Array {
  return new Uint8Array(Buffer.from(segment, 'base64url'));
}

/** Splits and decodes a compact JWS; throws on anything that is not three base64url JSON parts. */
export function decodeJws(token: string): DecodedJws {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error(`not a compact JWS: ${token.slice(0, 40)}`);
  const [h, p, s] = parts as [string, string, string];
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')),
    signingInput: `${h}.${p}`,
    signature: decodeBase64Url(s),
  };
}

/** Signs a compact JWS with node:crypto (RS256 unless the header names RS384/RS512). */
export function signJws(
  header: Record<string, unknown>,
  payload: unknown,
  privateKey: KeyObject,
): string {
  const alg = String(header.alg ?? 'RS256');
  const hash = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' }[alg];
  if (!hash) throw new Error(`cannot sign ${alg}`);
  const enc = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${enc({ ...header, alg })}.${enc(payload)}`;
  return `${input}.${cryptoSign(hash, Buffer.from(input), privateKey).toString('base64url')}`;
}
