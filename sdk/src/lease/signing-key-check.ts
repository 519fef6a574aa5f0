import { base64url } from 'jose';
import { TokenInvalidError } from '../errors.js';
import { messageOf } from '../internal/message-of.js';
import { createRs256Verifier, type Rs256Verify } from '../internal/platform/rs256-verifier.js';
import type { LicensingService } from '../types.js';
import {
  type PathValidity,
  type TrustAnchor,
  verifyCertificateChain,
} from './certificate-chain.js';

/** A JWK whose chain verified: its RS256 check and the dates to re-check at each use. */
export interface VerifiedKey {
  /** Checks an RS256 signature with the key of `x5c[0]` (node:crypto on Node, else WebCrypto). */
  verify: Rs256Verify;
  /** Every certificate of the path with its validity, checked again on each use. */
  validity: PathValidity[];
}

/** Big-endian unsigned integer bytes without leading zeros, from base64url. */
function integerBytes(value: string): string {
  const bytes = base64url.decode(value);
  let start = 0;
  // Zero itself becomes empty: no RSA key has a zero n or e, so equality is all that matters.
  while (bytes[start] === 0) start++;
  return base64url.encode(bytes.subarray(start));
}

/** What to do about a published key that is not a licensing service's signing key. */
function keyAdvice(context: SigningKeyContext): string {
  const option =
    context.service === undefined
      ? 'the URL the key set comes from'
      : context.service === 'main'
        ? 'mainUrl'
        : 'standbyUrl';
  return `Check that ${option} is a licensing service: it must publish RS256 signing keys with their certificate chain.`;
}

/** The JWK's `n` and `e`, after checking it is an RSA signing key for RS256. */
function readRsaJwk(
  jwk: Record<string, unknown>,
  kid: string,
  context: SigningKeyContext,
): { n: string; e: string } {
  const refuse = (what: string) =>
    new TokenInvalidError('key', `the JWK of kid ${kid} ${what}. ${keyAdvice(context)}`);
  if (jwk.kty !== 'RSA') throw refuse('is not an RSA key');
  if (jwk.alg !== undefined && jwk.alg !== 'RS256') {
    throw refuse(`is for alg ${String(jwk.alg)}, not RS256`);
  }
  if (jwk.use !== undefined && jwk.use !== 'sig') {
    throw refuse(`has use ${String(jwk.use)}, not sig`);
  }
  if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string') throw refuse('lacks n or e');
  return { n: jwk.n, e: jwk.e };
}

/**
 * A stable text of what makes a JWK trusted (`n`, `e`, `x5c`), to tell whether a republished JWK
 * of the same `kid` changed.
 */
export function jwkFingerprint(jwk: Record<string, unknown>): string {
  return JSON.stringify([jwk.kty, jwk.n, jwk.e, jwk.x5c]);
}

/** Where a key comes from, for messages that say what to do. */
export interface SigningKeyContext {
  service?: LicensingService;
  /** How to embed the service's current root (a command), appended to a chain refusal. */
  embedHint?: string;
}

/** Names the embedded roots and what to do, for a chain that reaches none of them. */
function chainAdvice(anchors: readonly TrustAnchor[], context: SigningKeyContext): string {
  const subjects = anchors.map((anchor) => anchor.cert.subject).join('; ');
  const fix =
    context.embedHint ??
    "Embed the root certificate of the service's current signing key (npx standby-licensing embed-root --help).";
  return ` The app embeds ${anchors.length} root(s): ${subjects}. ${fix}`;
}

/**
 * The spec's authenticity check of a signing key: the JWK is an RSA signing key, its `x5c` chain
 * leads to one of `anchors` (see `verifyCertificateChain`), and `x5c[0]`'s modulus and exponent
 * equal the JWK's `n` and `e` (compared as integers). Certificate dates are returned, not
 * checked, so the result can be cached and the dates re-checked at each use. A chain refusal
 * names the service, the embedded roots' subjects and how to embed the right one.
 *
 * @throws TokenInvalidError with reason `key`, `chain` or `modulus`.
 */
export async function verifySigningKey(
  jwk: Record<string, unknown>,
  kid: string,
  anchors: readonly TrustAnchor[],
  context: SigningKeyContext = {},
): Promise<VerifiedKey> {
  const { n, e } = readRsaJwk(jwk, kid, context);
  let path: Awaited<ReturnType<typeof verifyCertificateChain>>;
  try {
    path = await verifyCertificateChain(jwk.x5c, anchors);
  } catch (cause) {
    // Dates are not checked here, so every failure of the chain is a `chain` refusal.
    const owner = context.service === undefined ? '' : `the ${context.service} service's `;
    throw new TokenInvalidError(
      'chain',
      `${owner}signing key ${kid} cannot be trusted: ${messageOf(cause)}.${chainAdvice(anchors, context)}`,
      { cause },
    );
  }
  let verify: Rs256Verify;
  let leaf: JsonWebKey;
  try {
    verify = await createRs256Verifier(path.leaf.publicKey);
    const key = await globalThis.crypto.subtle.importKey(
      'spki',
      path.leaf.publicKey,
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      true,
      // Imported only to read its n and e.
      [],
    );
    leaf = await globalThis.crypto.subtle.exportKey('jwk', key);
  } catch (cause) {
    throw new TokenInvalidError(
      'key',
      `x5c[0] of kid ${kid} is not an RSA public key. ${keyAdvice(context)}`,
      { cause },
    );
  }
  let same: boolean;
  try {
    same = integerBytes(leaf.n!) === integerBytes(n) && integerBytes(leaf.e!) === integerBytes(e);
  } catch (cause) {
    throw new TokenInvalidError(
      'key',
      `the JWK of kid ${kid} has malformed n or e. ${keyAdvice(context)}`,
      { cause },
    );
  }
  if (!same) {
    throw new TokenInvalidError(
      'modulus',
      `the modulus or exponent of x5c[0] differs from the JWK n/e of kid ${kid}. ${keyAdvice(context)}`,
    );
  }
  return { verify, validity: path.validity };
}
