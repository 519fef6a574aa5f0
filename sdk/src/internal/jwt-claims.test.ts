import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { readJwtClaims } from './jwt-claims.js';

const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const header = segment({ alg: 'HS256', typ: 'JWT' });

describe('readJwtClaims', () => {
  it('reads the claims of a signed JWT as jose decodeJwt does', async () => {
    const token = await new SignJWT({ sub: 'user-1', exp: 1_900_000_000, nested: { a: [1, 2] } })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('a secret of thirty-two bytes....'));
    expect(readJwtClaims(token)).toEqual(decodeJwt(token));
    expect(readJwtClaims(token)?.exp).toBe(1_900_000_000);
  });

  it('tolerates padding on the payload, as jose does', () => {
    const payload = segment({ exp: 70 });
    const padded = `${payload}${'='.repeat((4 - (payload.length % 4)) % 4)}`;
    expect(padded).not.toBe(payload);
    expect(readJwtClaims(`${header}.${padded}.sig`)).toEqual({ exp: 70 });
  });

  it.each([
    ['no dots', 'not-a-token'],
    ['two parts', `${header}.${segment({ exp: 1 })}`],
    ['five parts (a JWE)', `${header}.a.${segment({ exp: 1 })}.c.d`],
    ['an empty payload', `${header}..sig`],
    ['a payload outside the alphabet', `${header}.e30!.sig`],
    ['a payload that is not JSON', `${header}.${Buffer.from('{nope').toString('base64url')}.sig`],
    ['a JSON array', `${header}.${segment([1])}.sig`],
    ['JSON null', `${header}.${segment(null)}.sig`],
    ['a JSON string', `${header}.${segment('exp')}.sig`],
  ])('returns undefined for %s', (_what, token) => {
    expect(readJwtClaims(token)).toBeUndefined();
  });
});
