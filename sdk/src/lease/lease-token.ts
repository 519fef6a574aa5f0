// The form of a lease token, read before any key is touched: a compact JWS of three strict
// base64url segments (no padding, no other character), a JSON object header with `alg: RS256`
// and a `kid`, neither `crit` nor `b64`, and a JSON object payload.
import { TokenInvalidError } from '../errors.js';
import { decodeStrictBase64url } from '../internal/platform/base64url.js';
import { encodeUtf8 } from '../internal/platform/utf8.js';

/** A lease token whose form was checked; nothing in it is trusted yet. */
export interface LeaseToken {
  /** The compact JWS as given. */
  readonly token: string;
  /** The `kid` of the protected header. */
  readonly kid: string;
  /** The payload's claims, decoded but not verified. */
  readonly claims: Record<string, unknown>;
  /** The bytes the signature covers (`header.payload`). */
  readonly signingInput: Uint8Array;
  /** The signature's bytes. */
  readonly signature: Uint8Array;
}

const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** What to do about a token that is not a lease's form. */
const FORM_ADVICE =
  'Check that the token is a lease exactly as a licensing service sent it (mainUrl, standbyUrl).';

function malformed(message: string, cause?: unknown): TokenInvalidError {
  return new TokenInvalidError('malformed', `${message}. ${FORM_ADVICE}`, { cause });
}

/** The bytes of a non-empty strict base64url segment (no padding, no other character). */
function decodeSegment(segment: string): Uint8Array {
  const bytes = segment === '' ? undefined : decodeStrictBase64url(segment);
  if (!bytes) {
    throw malformed(
      'a segment of the lease token is not strict base64url (no padding, no other character)',
    );
  }
  return bytes;
}

/** A strict base64url segment holding a JSON object. */
function decodeObject(segment: string, what: string): Record<string, unknown> {
  const bytes = decodeSegment(segment);
  let value: unknown;
  try {
    value = JSON.parse(fromUtf8.decode(bytes));
  } catch (cause) {
    throw malformed(`the lease token ${what} is not base64url JSON`, cause);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw malformed(`the lease token ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * Reads a lease token's form: three strict base64url segments, the header (`alg` RS256, a
 * non-empty `kid`, no `crit`, no `b64`) and the payload object.
 *
 * @throws TokenInvalidError with reason `malformed`, `alg` or `kid`.
 * @example
 * const { kid, claims } = readLeaseToken(token); // claims are not verified yet
 */
export function readLeaseToken(token: unknown): LeaseToken {
  if (typeof token !== 'string') throw malformed('the lease token is not a string');
  const parts = token.split('.');
  if (parts.length !== 3) {
    throw malformed('the lease token is not a compact JWS (three dot-separated parts)');
  }
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeObject(headerPart, 'header');
  if (header.alg !== 'RS256') {
    throw new TokenInvalidError(
      'alg',
      `the lease token alg is ${JSON.stringify(header.alg) ?? 'missing'}; only RS256 is accepted. ${FORM_ADVICE}`,
    );
  }
  if (typeof header.kid !== 'string' || header.kid === '') {
    throw malformed('the lease token header has no kid');
  }
  if (header.crit !== undefined || header.b64 !== undefined) {
    throw malformed('the lease token header carries crit or b64, which leases never use');
  }
  const claims = decodeObject(payloadPart, 'payload');
  return {
    token,
    kid: header.kid,
    claims,
    signingInput: encodeUtf8(`${headerPart}.${payloadPart}`),
    signature: decodeSegment(signaturePart),
  };
}

/**
 * The claims of a token, decoded without any check, or undefined when it has no readable
 * payload: for sorting and bookkeeping of saved tokens only, never for trust.
 */
export function peekClaims(token: string): Record<string, unknown> | undefined {
  try {
    return readLeaseToken(token).claims;
  } catch {
    return undefined;
  }
}
