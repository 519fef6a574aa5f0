// The form of a lease token (DECISIONS.md "Lease trust (third wave)": strict base64url segments,
// an RS256 header with a kid, no crit or b64, JSON objects), read before any key is touched.
import { describe, expect, it } from 'vitest';
import { TokenInvalidError } from '../errors.js';
import { peekClaims, readLeaseToken } from './lease-token.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const HEADER = { alg: 'RS256', typ: 'JWT', kid: 'key-1' };
const CLAIMS = { ItemA: true, jti: 'J1', lic: 'L1', iat: 1_000, exp: 2_000 };
/** A signature segment of the right form; nothing here checks it. */
const SIGNATURE = Buffer.alloc(256, 7).toString('base64url');

function tokenOf(header: unknown = HEADER, claims: unknown = CLAIMS, signature = SIGNATURE) {
  return `${b64(header)}.${b64(claims)}.${signature}`;
}

/** The TokenInvalidError `readLeaseToken` throws for `token`. */
function refusal(token: unknown): TokenInvalidError {
  try {
    readLeaseToken(token);
  } catch (error) {
    expect(error).toBeInstanceOf(TokenInvalidError);
    return error as TokenInvalidError;
  }
  throw new Error('expected readLeaseToken to throw');
}

describe('readLeaseToken', () => {
  it('reads a compact JWS: kid, claims, the signing input and the signature', () => {
    const token = tokenOf();
    const read = readLeaseToken(token);
    const [header, payload] = token.split('.');
    expect(read.token).toBe(token);
    expect(read.kid).toBe('key-1');
    expect(read.claims).toEqual(CLAIMS);
    expect([...read.signature]).toEqual(Array(256).fill(7));
    expect(new TextDecoder().decode(read.signingInput)).toBe(`${header}.${payload}`);
  });

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 42, { token: tokenOf() }, [tokenOf()]]) {
      const error = refusal(value);
      expect(error.reason).toBe('malformed');
      expect(error.message).toBe(
        'the lease token is not a string. Check that the token is a lease exactly as a licensing service sent it (mainUrl, standbyUrl).',
      );
    }
  });

  it('refuses a token of two or four segments', () => {
    const [header, payload] = tokenOf().split('.');
    for (const token of [`${header}.${payload}`, `${tokenOf()}.${SIGNATURE}`, header!, '']) {
      const error = refusal(token);
      expect(error.reason).toBe('malformed');
      expect(error.message).toMatch(/three dot-separated parts/);
    }
  });

  it('refuses padding or any character outside base64url, in every segment', () => {
    const [header, payload, signature] = tokenOf().split('.') as [string, string, string];
    const variants = [
      `${header}==.${payload}.${signature}`,
      `!${header}.${payload}.${signature}`,
      `${header}.${payload}==.${signature}`,
      `${header}.+${payload}.${signature}`,
      `${header}.${payload}.${signature}==`,
      `${header}.${payload}.${signature}!`,
      `${header}.${payload}./${signature}`,
      `${header}.${payload}.${signature.slice(0, 8)} ${signature.slice(8)}`,
    ];
    for (const token of variants) {
      const error = refusal(token);
      expect(error.reason).toBe('malformed');
      expect(error.message).toMatch(/strict base64url/);
    }
  });

  it('refuses an empty segment', () => {
    const [header, payload, signature] = tokenOf().split('.') as [string, string, string];
    for (const token of [
      `.${payload}.${signature}`,
      `${header}..${signature}`,
      `${header}.${payload}.`,
    ]) {
      expect(refusal(token).reason).toBe('malformed');
    }
  });

  it('refuses a segment whose length no base64 text can have (4n + 1)', () => {
    const [header, payload] = tokenOf().split('.') as [string, string];
    // 4n + 1 characters: one character too many for any byte string.
    const odd = 'A'.repeat(4 * 86 + 1);
    expect(refusal(`${header}.${payload}.${odd}`).message).toMatch(/strict base64url/);
    const longHeader = b64({ ...HEADER, pad: 'x'.repeat(40) });
    const padded =
      longHeader.length % 4 === 1
        ? longHeader
        : `${longHeader}${'A'.repeat((5 - (longHeader.length % 4)) % 4)}`;
    expect(padded.length % 4).toBe(1);
    expect(refusal(`${padded}.${payload}.${SIGNATURE}`).message).toMatch(/strict base64url/);
    // 4n + 2 and 4n + 3 are lengths base64url without padding has.
    for (const length of [4 * 86 + 2, 4 * 86 + 3, 4 * 86]) {
      expect(readLeaseToken(`${header}.${payload}.${'A'.repeat(length)}`).signature).toHaveLength(
        Math.floor((length * 3) / 4),
      );
    }
  });

  it('refuses a header or payload that is not base64url JSON, naming which', () => {
    const notJson = Buffer.from('{"alg":').toString('base64url');
    const header = refusal(`${notJson}.${b64(CLAIMS)}.${SIGNATURE}`);
    expect(header.reason).toBe('malformed');
    expect(header.message).toMatch(/header is not base64url JSON/);
    expect(header.cause).toBeInstanceOf(SyntaxError);
    const payload = refusal(`${b64(HEADER)}.${notJson}.${SIGNATURE}`);
    expect(payload.message).toMatch(/payload is not base64url JSON/);
    expect(payload.cause).toBeInstanceOf(SyntaxError);
  });

  it('refuses text that is not UTF-8, even inside a JSON string', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"ItemA":true,"x":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    const error = refusal(`${b64(HEADER)}.${bytes.toString('base64url')}.${SIGNATURE}`);
    expect(error.reason).toBe('malformed');
    expect(error.message).toMatch(/payload is not base64url JSON/);
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it('refuses a header or payload that is JSON but not an object', () => {
    for (const value of [null, 'text', 7, true, [HEADER]]) {
      const header = refusal(tokenOf(value));
      expect(header.reason).toBe('malformed');
      expect(header.message).toMatch(/header is not a JSON object/);
      expect(header.cause).toBeUndefined();
      const payload = refusal(tokenOf(HEADER, value));
      expect(payload.message).toMatch(/payload is not a JSON object/);
    }
  });

  it('refuses any alg but RS256, saying which', () => {
    for (const alg of ['HS256', 'none', 'RS384', 'rs256', 'PS256']) {
      const error = refusal(tokenOf({ ...HEADER, alg }));
      expect(error.reason).toBe('alg');
      expect(error.message).toContain(`"${alg}"`);
    }
    const missing = refusal(tokenOf({ typ: 'JWT', kid: 'key-1' }));
    expect(missing.reason).toBe('alg');
    expect(missing.message).toMatch(/alg is missing; only RS256/);
  });

  it('refuses a header without a kid, an empty kid or a kid that is not a string', () => {
    for (const kid of [undefined, '', 7, null, ['key-1']]) {
      const error = refusal(tokenOf({ alg: 'RS256', kid }));
      expect(error.reason).toBe('malformed');
      expect(error.message).toMatch(/has no kid/);
    }
  });

  it('refuses a header that carries crit or b64, whatever their value', () => {
    for (const extra of [
      { crit: ['exp'] },
      { crit: [] },
      { b64: false },
      { b64: true },
      { crit: ['b64'], b64: false },
    ]) {
      const error = refusal(tokenOf({ ...HEADER, ...extra }));
      expect(error.reason).toBe('malformed');
      expect(error.message).toMatch(/crit or b64/);
    }
  });

  it('checks the header before the payload and the signature', () => {
    expect(refusal(`${b64({ alg: 'HS256', kid: 'k' })}.!!.${SIGNATURE}`).reason).toBe('alg');
    expect(refusal(`${b64({ alg: 'RS256' })}.${b64(CLAIMS)}.!!`).message).toMatch(/no kid/);
  });
});

describe('peekClaims', () => {
  it('returns the claims of a well-formed token without verifying it', () => {
    expect(peekClaims(tokenOf())).toEqual(CLAIMS);
  });

  it('returns undefined for a token it cannot read', () => {
    expect(peekClaims('not.a.token')).toBeUndefined();
    expect(peekClaims(tokenOf({ alg: 'none', kid: 'k' }))).toBeUndefined();
    expect(peekClaims('')).toBeUndefined();
  });
});
