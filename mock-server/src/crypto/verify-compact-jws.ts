import type { KeyObject } from 'node:crypto';
import { loadJose } from './load-jose.js';
import type { TrustedKey } from './public-keys.js';

/** Why a compact JWS was refused. */
export type JwsRefusal =
  /** Not three strict base64url parts, header not a JSON object, `crit` or `b64` present. */
  | 'malformed'
  /** `alg` is not one of the allowed algorithms. */
  | 'unsupported_alg'
  /** No trusted key verifies the signature. */
  | 'bad_signature'
  /** Signature good, but a claim check in `verify` failed (JWTs). */
  | 'claims';

/** A refused JWS, with the reason callers map to their ApiError. */
export class JwsError extends Error {
  override readonly name = 'JwsError';
  readonly reason: JwsRefusal;
  constructor(reason: JwsRefusal, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/** A compact JWS whose form was checked (not its signature). */
export interface ParsedCompactJws {
  /** The protected header. */
  header: Record<string, unknown>;
  /** The decoded payload bytes. */
  payload: Uint8Array;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Decodes one part, accepting only canonical base64url: no `+`, `/`, `=` or whitespace, and no
 * stray bits in the last character. (jose decodes with `atob` on Node 20, which takes standard
 * base64 and padding too; a signature with two spellings is malleable.)
 */
function decodePart(part: string, what: string): Buffer {
  if (!BASE64URL.test(part)) {
    throw new JwsError('malformed', `The JWS ${what} is not base64url`);
  }
  const bytes = Buffer.from(part, 'base64url');
  if (bytes.toString('base64url') !== part) {
    throw new JwsError('malformed', `The JWS ${what} is not canonical base64url`);
  }
  return bytes;
}

/**
 * Checks the form of a compact JWS without verifying it: three non-empty canonical base64url
 * parts, a JSON-object header whose `alg` is in `algorithms`, and neither `crit` (no extension
 * is understood) nor `b64` (payloads are always base64url). Throws {@link JwsError}.
 *
 * @example
 * const { header, payload } = parseCompactJws(body, ['RS256', 'RS384', 'RS512']);
 */
export function parseCompactJws(token: string, algorithms: readonly string[]): ParsedCompactJws {
  const parts = token.split('.');
  if (parts.length !== 3) {
    throw new JwsError('malformed', 'Expected a compact JWS: three base64url parts joined by dots');
  }
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  let header: unknown;
  try {
    header = JSON.parse(decodePart(headerPart, 'header').toString('utf8'));
  } catch (err) {
    if (err instanceof JwsError) throw err;
    throw new JwsError('malformed', 'The JWS header is not JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new JwsError('malformed', 'The JWS header is not a JSON object');
  }
  const { alg } = header as { alg?: unknown };
  if (typeof alg !== 'string' || !algorithms.includes(alg)) {
    throw new JwsError(
      'unsupported_alg',
      `JWS alg ${JSON.stringify(alg) ?? 'undefined'} is not allowed; use ${algorithms.join(', ')}`,
    );
  }
  if ('crit' in header) throw new JwsError('malformed', 'JWS crit extensions are not supported');
  if ('b64' in header) throw new JwsError('malformed', 'The JWS b64 header is not supported');
  const payload = decodePart(payloadPart, 'payload');
  decodePart(signaturePart, 'signature');
  return { header: header as Record<string, unknown>, payload };
}

/** Options of {@link verifyCompactJws}. */
export interface VerifyCompactJwsOptions<R> {
  /** Allowed `alg` values (RSA only: `RS256`, `RS384`, `RS512`). */
  algorithms: readonly string[];
  /**
   * Verifies `token` with one candidate key through jose; default `compactVerify` with
   * `algorithms`. Pass `jwtVerify` with claim options to check a JWT's claims too.
   */
  verify?: (token: string, key: KeyObject) => Promise<R>;
}

/**
 * Verifies a compact JWS with jose against trusted RSA keys: the form first
 * ({@link parseCompactJws}), then each candidate key (those whose `kid` matches the header's,
 * plus those without a `kid`; every key when the header has none) until one verifies. Resolves
 * with the parsed JWS and what `verify` returned; rejects with a {@link JwsError}.
 *
 * @example
 * const { payload } = await verifyCompactJws(token, trustedKeys, { algorithms: ['RS256'] });
 */
export async function verifyCompactJws<R = unknown>(
  token: string,
  keys: readonly TrustedKey[],
  options: VerifyCompactJwsOptions<R>,
): Promise<ParsedCompactJws & { result: R }> {
  const parsed = parseCompactJws(token, options.algorithms);
  const { kid } = parsed.header;
  const candidates = keys.filter(
    (k) =>
      k.key.asymmetricKeyType === 'rsa' &&
      (typeof kid !== 'string' || k.kid === undefined || k.kid === kid),
  );
  // Loaded with the first token to verify, not at start (about 20 ms of a cold start).
  const { compactVerify, errors } = await loadJose();
  const verify =
    options.verify ??
    ((text: string, key: KeyObject) =>
      compactVerify(text, key, { algorithms: [...options.algorithms] }) as Promise<R>);
  for (const { key } of candidates) {
    try {
      return { ...parsed, result: await verify(token, key) };
    } catch (err) {
      if (err instanceof errors.JWSSignatureVerificationFailed) continue;
      if (err instanceof errors.JWTClaimValidationFailed || err instanceof errors.JWTInvalid) {
        throw new JwsError('claims', err.message, { cause: err });
      }
      if (err instanceof errors.JOSEAlgNotAllowed) {
        throw new JwsError('unsupported_alg', err.message, { cause: err });
      }
      throw new JwsError('malformed', (err as Error).message, { cause: err });
    }
  }
  throw new JwsError('bad_signature', 'The JWS signature does not verify with any trusted key');
}
