import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TrustedKey } from './public-keys.js';
import { JwsError, parseCompactJws, verifyCompactJws } from './verify-compact-jws.js';

const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const signer = rsa();
const other = rsa();
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact JWS signed for real with `key` (RS256 unless the header says otherwise). */
function sign(header: Record<string, unknown>, payload: unknown, key: KeyObject): string {
  const input = `${b64({ alg: 'RS256', ...header })}.${b64(payload)}`;
  const hash = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' }[
    (header.alg as string) ?? 'RS256'
  ];
  return `${input}.${createSign(hash ?? 'sha256')
    .update(input)
    .sign(key, 'base64url')}`;
}

const trusted: TrustedKey[] = [{ kid: 'k1', key: signer.publicKey }];
const verify = (token: string, keys = trusted) =>
  verifyCompactJws(token, keys, { algorithms: ['RS256', 'RS384', 'RS512'] });
const reason = async (token: string, keys = trusted) => {
  const err = await verify(token, keys).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JwsError);
  return (err as JwsError).reason;
};

describe('verifyCompactJws (jose, strict)', () => {
  it('verifies RS256, RS384 and RS512 with a trusted key, by kid or without one', async () => {
    for (const alg of ['RS256', 'RS384', 'RS512']) {
      const { payload } = await verify(sign({ alg, kid: 'k1' }, { n: 1 }, signer.privateKey));
      expect(JSON.parse(Buffer.from(payload).toString())).toEqual({ n: 1 });
    }
    await expect(verify(sign({}, { n: 2 }, signer.privateKey))).resolves.toBeDefined();
    // A PEM key has no kid: it is a candidate whatever kid the header names.
    const pemOnly = [{ key: signer.publicKey }];
    await expect(verify(sign({ kid: 'x' }, {}, signer.privateKey), pemOnly)).resolves.toBeDefined();
  });

  it('refuses a signature by another key, or a key with another kid', async () => {
    expect(await reason(sign({}, {}, other.privateKey))).toBe('bad_signature');
    const both = [...trusted, { kid: 'k2', key: other.publicKey }];
    expect(await reason(sign({ kid: 'k2' }, {}, signer.privateKey), both)).toBe('bad_signature');
    // EC keys never count, even for a well-formed RS256 token.
    expect(await reason(sign({}, {}, signer.privateKey), [{ key: ec.publicKey }])).toBe(
      'bad_signature',
    );
  });

  it('refuses crit and b64 even with a valid signature', async () => {
    const crit = sign({ crit: ['exp'], exp: 1 }, {}, signer.privateKey);
    expect(await reason(crit)).toBe('malformed');
    const critB64 = sign({ b64: false, crit: ['b64'] }, {}, signer.privateKey);
    expect(await reason(critB64)).toBe('malformed');
    const b64Only = sign({ b64: true }, {}, signer.privateKey);
    expect(await reason(b64Only)).toBe('malformed');
  });

  it('refuses standard base64, padding and non-canonical base64url', async () => {
    const good = sign({}, { sub: 'x?>' }, signer.privateKey);
    const [h, p, s] = good.split('.') as [string, string, string];
    const standard = Buffer.from(s, 'base64url').toString('base64');
    expect(await reason(`${h}.${p}.${standard}`)).toBe('malformed');
    expect(await reason(`${h}.${p}.${s}==`)).toBe('malformed');
    // The last character of a 256-byte signature carries 4 unused bits: set one.
    const last = s.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = alphabet[alphabet.indexOf(last) + 1]!;
    expect(Buffer.from(`${s.slice(0, -1)}${twin}`, 'base64url')).toEqual(
      Buffer.from(s, 'base64url'),
    );
    expect(await reason(`${h}.${p}.${s.slice(0, -1)}${twin}`)).toBe('malformed');
    expect(await reason(`${h}.${p}.${s} `)).toBe('malformed');
    expect(await reason(`${h}.${p}`)).toBe('malformed');
    expect(await reason(`${h}.${p}.`)).toBe('malformed');
  });

  it('refuses algorithms outside the list before looking at keys', async () => {
    expect(await reason(`${b64({ alg: 'none' })}.${b64({})}.`)).toBe('unsupported_alg');
    expect(() => parseCompactJws(`${b64({ alg: 'none' })}.${b64({})}.AA`, ['RS256'])).toThrow(
      expect.objectContaining({ reason: 'unsupported_alg' }),
    );
    expect(() => parseCompactJws(`${b64({ alg: 'HS256' })}.${b64({})}.AA`, ['RS256'])).toThrow(
      expect.objectContaining({ reason: 'unsupported_alg' }),
    );
    expect(() => parseCompactJws(`${b64([1])}.${b64({})}.AA`, ['RS256'])).toThrow(
      expect.objectContaining({ reason: 'malformed' }),
    );
  });
});
