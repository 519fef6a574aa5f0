import { decodeJwt, exportPKCS8, generateKeyPair, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type EventReadAuth, resolveEventClientOptions } from '../options/event-client.js';
import { resolveFeed } from './feed-selector.js';
import { createReadTokenSource as createFromResolved } from './read-token.js';

/** Resolves `auth` as `createEventClient` does, then builds the token source. */
function createReadTokenSource(auth: EventReadAuth, now: () => number) {
  return createFromResolved(
    resolveEventClientOptions({ eventUrl: 'http://e.test', auth }).auth,
    now,
  );
}

let keys: CryptoKeyPair;
beforeAll(async () => {
  keys = await generateKeyPair('RS512', { extractable: true });
});

describe('read tokens signed by the SDK', () => {
  it('claims the feed read, with iat and exp, signed with the given alg and kid', async () => {
    let now = 1_800_000_000_000;
    const source = createReadTokenSource(
      {
        privateKey: await exportPKCS8(keys.privateKey),
        alg: 'RS512',
        kid: 'reader-1',
        ttlMs: 60_000,
      },
      () => now,
    );
    const token = await source(resolveFeed({ objectType: 'License', objectId: 'L-1' }));
    const { payload, protectedHeader } = await jwtVerify(token!, keys.publicKey, {
      currentDate: new Date(now),
    });
    expect(protectedHeader).toEqual({ alg: 'RS512', kid: 'reader-1', typ: 'JWT' });
    expect(payload).toEqual({ 'License/L-1': true, iat: now / 1000, exp: now / 1000 + 60 });

    // Cached until 75 % of the lifetime, then signed again.
    now += 44_000;
    expect(await source(resolveFeed({ objectType: 'License', objectId: 'L-1' }))).toBe(token);
    now += 2_000;
    const fresh = await source(resolveFeed({ objectType: 'License', objectId: 'L-1' }));
    expect(fresh).not.toBe(token);
    expect(decodeJwt(fresh!).exp).toBe(now / 1000 + 60);
  });

  it('with scope \'all\' claims "*" once for every feed; concurrent calls share one signing', async () => {
    const source = createReadTokenSource(
      { privateKey: keys.privateKey, alg: 'RS512', scope: 'all', claims: { sub: 'reader' } },
      () => 1_800_000_000_000,
    );
    const [a, b] = await Promise.all([source(resolveFeed('x')), source(resolveFeed('y'))]);
    expect(a).toBe(b);
    expect(decodeJwt(a!)).toMatchObject({ '*': true, sub: 'reader', exp: 1_800_000_000 + 300 });
  });

  it('passes the feed name to a token provider', async () => {
    const feeds: string[] = [];
    const source = createReadTokenSource(
      {
        token: ({ feed }) => {
          feeds.push(feed);
          return 'ready';
        },
      },
      Date.now,
    );
    expect(await source(resolveFeed({ source: 'billing' }))).toBe('ready');
    expect(feeds).toEqual(['billing']);
  });

  it('refuses bad auth options with an InvalidOptionError naming the option', () => {
    expect(() =>
      createReadTokenSource({ privateKey: keys.privateKey, ttlMs: 5 }, Date.now),
    ).toThrow(/auth\.ttlMs/);
    expect(() =>
      createReadTokenSource({ privateKey: keys.privateKey, scope: 'some' as never }, Date.now),
    ).toThrow(/auth\.scope/);
  });
});
