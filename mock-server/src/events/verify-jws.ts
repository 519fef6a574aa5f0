import { createVerify } from 'node:crypto';
import type { TrustedKey } from '../crypto/public-keys.js';

/** The JWS algorithms the event service accepts, for writes and read tokens alike. */
export const EVENT_JWS_ALGS = ['RS256', 'RS384', 'RS512'] as const;

const HASH: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' };

/** A compact JWS split into its parts; the signature is not checked yet. */
export interface CompactJws {
  header: Record<string, unknown>;
  /** The decoded payload bytes as UTF-8 text. */
  payloadText: string;
  signingInput: string;
  signature: string;
}

/** Why a JWS was refused: malformed, algorithm not allowed, or no trusted key verifies it. */
export class JwsError extends Error {
  override readonly name = 'JwsError';
  readonly reason: 'malformed' | 'unsupported_alg' | 'bad_signature';
  constructor(reason: JwsError['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

const SEGMENT = /^[A-Za-z0-9_-]*$/;

/**
 * Splits a compact JWS (`header.payload.signature`, base64url) and checks that `alg` is RS256,
 * RS384 or RS512 and that no `crit` extension is demanded. Throws {@link JwsError}.
 */
export function parseCompactJws(text: string): CompactJws {
  const parts = text.trim().split('.');
  if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) {
    throw new JwsError('malformed', 'Expected a compact JWS: three base64url parts joined by dots');
  }
  const [h, p, signature] = parts as [string, string, string];
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
  } catch {
    throw new JwsError('malformed', 'The JWS header is not base64url-encoded JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new JwsError('malformed', 'The JWS header is not a JSON object');
  }
  const alg = (header as { alg?: unknown }).alg;
  if (typeof alg !== 'string' || !(alg in HASH)) {
    throw new JwsError(
      'unsupported_alg',
      `JWS alg ${JSON.stringify(alg)} is not allowed; use RS256, RS384 or RS512`,
    );
  }
  if ('crit' in header) throw new JwsError('malformed', 'JWS crit extensions are not supported');
  if (signature === '') throw new JwsError('malformed', 'The JWS has no signature');
  return {
    header: header as Record<string, unknown>,
    payloadText: Buffer.from(p, 'base64url').toString('utf8'),
    signingInput: `${h}.${p}`,
    signature,
  };
}

/**
 * Checks the signature of `jws` against trusted RSA keys: the keys whose `kid` equals the
 * header's `kid` when there are any, else every key. Throws {@link JwsError} `bad_signature`.
 */
export function verifyCompactJws(jws: CompactJws, keys: readonly TrustedKey[]): void {
  const kid = jws.header.kid;
  const byKid = typeof kid === 'string' ? keys.filter((key) => key.kid === kid) : [];
  const candidates = byKid.length > 0 ? byKid : keys;
  const hash = HASH[jws.header.alg as string]!;
  const signature = Buffer.from(jws.signature, 'base64url');
  for (const { key } of candidates) {
    // An EC key would verify an ECDSA signature under the same hash: only RSA keys count.
    if (key.asymmetricKeyType !== 'rsa') continue;
    if (createVerify(hash).update(jws.signingInput).verify(key, signature)) return;
  }
  throw new JwsError('bad_signature', 'The JWS signature does not verify with any trusted key');
}
