import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createIdTokenSource, type IdTokenStore } from './id-token-source.js';
import { createMemoryIdTokenStore } from './memory-id-token-store.js';

const HOUR = 3_600_000;
const GRACE = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);

const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An ID-token-shaped JWT (the source never verifies signatures, it only reads `exp`). */
function idToken(expMs: number, sub = 'user-1'): string {
  return `${segment({ alg: 'RS256', kid: 'k1' })}.${segment({ sub, exp: Math.floor(expMs / 1000) })}.c2ln`;
}

function clock(start = T0) {
  let now = start;
  return {
    now: () => now,
    set: (value: number) => {
      now = value;
    },
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('createIdTokenSource', () => {
  it('uses a fresh token without asking the provider again', async () => {
    const time = clock();
    const token = idToken(T0 + HOUR);
    const provider = vi.fn(() => token);
    const source = createIdTokenSource({ provider, now: time.now });

    await expect(source.get('main')).resolves.toEqual({
      token,
      inGrace: false,
      expiresAt: Math.floor((T0 + HOUR) / 1000) * 1000,
    });
    time.set(T0 + HOUR / 2);
    await expect(source.get('standby')).resolves.toMatchObject({ token, inGrace: false });
    expect(provider).toHaveBeenCalledTimes(1);
    expect(source.expiresAt).toBe(T0 + HOUR);
  });

  it('asks the provider once for concurrent callers when the token expired', async () => {
    const time = clock();
    const first = idToken(T0 + HOUR);
    const second = idToken(T0 + 3 * HOUR);
    const pending = deferred<string>();
    const provider = vi.fn<() => string | Promise<string>>(() => first);
    const source = createIdTokenSource({ provider, now: time.now });
    await source.get('main');

    time.set(T0 + HOUR + 1);
    provider.mockImplementation(() => pending.promise);
    const calls = [source.get('main'), source.get('standby'), source.get('main')];
    pending.resolve(second);
    const results = await Promise.all(calls);

    expect(provider).toHaveBeenCalledTimes(2);
    expect(results.map((result) => result.token)).toEqual([second, second, second]);
    expect(source.expiresAt).toBe(T0 + 3 * HOUR);
  });

  it('refreshes a token that expires within refreshSkewMs', async () => {
    const time = clock();
    const provider = vi.fn(() => idToken(time.now() + HOUR));
    const source = createIdTokenSource({ provider, now: time.now, refreshSkewMs: 60_000 });
    await source.get('main');
    time.set(T0 + HOUR - 59_000);
    await source.get('main');
    expect(provider).toHaveBeenCalledTimes(2);
  });

  it('asks the provider on forceRefresh even when the token is unexpired', async () => {
    const time = clock();
    const provider = vi.fn(() => idToken(time.now() + HOUR));
    const source = createIdTokenSource({ provider, now: time.now });
    await source.get('main');
    time.set(T0 + 1000);
    await source.get('main', { forceRefresh: true });
    expect(provider).toHaveBeenCalledTimes(2);
  });

  it('falls back to the cached token on the standby within the grace; main gets it too, to decide', async () => {
    const time = clock();
    const token = idToken(T0 + HOUR);
    const outage = new Error('identity provider unreachable');
    const provider = vi.fn<() => string>(() => token);
    const source = createIdTokenSource({ provider, now: time.now });
    await source.get('main');

    provider.mockImplementation(() => {
      throw outage;
    });
    time.set(T0 + HOUR + 5 * HOUR);
    await expect(source.get('standby')).resolves.toEqual({
      token,
      inGrace: true,
      expiresAt: T0 + HOUR,
    });
    // Main is never skipped because the SDK judges the token expired: main decides.
    await expect(source.get('main')).resolves.toEqual({
      token,
      inGrace: false,
      expiresAt: T0 + HOUR,
    });
    // After main refused it (a 401), the provider's failure is the answer.
    const refused = await source
      .get('main', { forceRefresh: true })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'LicensingError', code: 'UNAUTHORIZED', cause: outage });
  });

  it('refuses with ID_TOKEN_EXPIRED past the grace', async () => {
    const time = clock();
    const provider = vi.fn<() => string>(() => idToken(T0 + HOUR));
    const source = createIdTokenSource({ provider, now: time.now });
    await source.get('standby');
    provider.mockRejectedValue(new Error('down'));

    time.set(T0 + HOUR + GRACE);
    await expect(source.get('standby')).resolves.toMatchObject({ inGrace: true });
    time.set(T0 + HOUR + GRACE + 1);
    await expect(source.get('standby')).rejects.toMatchObject({ code: 'ID_TOKEN_EXPIRED' });
  });

  it('rejects with SERVICE_UNAVAILABLE naming the provider when it fails and nothing is cached', async () => {
    const source = createIdTokenSource({
      provider: () => Promise.reject(new Error('down')),
      now: () => T0,
    });
    for (const service of ['standby', 'main'] as const) {
      await expect(source.get(service)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        reason: 'id-token-provider-failed',
        cause: { code: 'UNAUTHORIZED', reason: 'id-token-provider-failed' },
      });
    }
  });

  it('rejects an unparsable provider token with UNAUTHORIZED and does not cache it', async () => {
    const store = createMemoryIdTokenStore();
    for (const bad of ['not-a-jwt', `${segment({ alg: 'RS256' })}.${segment({ sub: 'x' })}.c2ln`]) {
      const source = createIdTokenSource({ provider: () => bad, store, now: () => T0 });
      await expect(source.get('main')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
      expect(source.expiresAt).toBeUndefined();
    }
    await expect(store.load()).resolves.toBeUndefined();
  });

  it('sends an already expired provider token to main (main decides), in grace to the standby', async () => {
    const token = idToken(T0 - HOUR);
    const source = createIdTokenSource({ provider: () => token, now: () => T0 });
    await expect(source.get('main')).resolves.toEqual({
      token,
      inGrace: false,
      expiresAt: T0 - HOUR,
    });
    await expect(source.get('main', { forceRefresh: true })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      reason: 'id-token-expired',
    });
    await expect(source.get('standby')).resolves.toEqual({
      token,
      inGrace: true,
      expiresAt: T0 - HOUR,
    });
  });

  it('keeps the newer cached token when the provider returns an older expired one', async () => {
    const time = clock();
    const newer = idToken(T0 + HOUR);
    const provider = vi.fn<() => string>(() => newer);
    const source = createIdTokenSource({ provider, now: time.now });
    await source.get('main');
    provider.mockReturnValue(idToken(T0 - HOUR));
    time.set(T0 + 2 * HOUR);
    await expect(source.get('standby')).resolves.toMatchObject({ token: newer, inGrace: true });
  });

  it('persists each good token and a new instance (a restart) loads it lazily', async () => {
    const time = clock();
    const store = createMemoryIdTokenStore();
    const token = idToken(T0 + HOUR);
    const first = createIdTokenSource({ provider: () => token, store, now: time.now });
    await first.get('main');
    await expect(store.load()).resolves.toBe(token);

    const load = vi.spyOn(store, 'load');
    const provider = vi.fn(() => Promise.reject(new Error('idp down mid-outage')));
    const restarted = createIdTokenSource({ provider, store, now: time.now });
    expect(load).not.toHaveBeenCalled();
    expect(restarted.expiresAt).toBeUndefined();

    time.set(T0 + 2 * HOUR);
    await expect(restarted.get('standby')).resolves.toEqual({
      token,
      inGrace: true,
      expiresAt: T0 + HOUR,
    });
    await restarted.get('standby');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('uses an unexpired stored token without calling the provider', async () => {
    const store = createMemoryIdTokenStore();
    const token = idToken(T0 + HOUR);
    await store.save(token);
    const provider = vi.fn(() => idToken(T0 + 2 * HOUR));
    const source = createIdTokenSource({ provider, store, now: () => T0 });
    await expect(source.get('main')).resolves.toMatchObject({ token });
    expect(provider).not.toHaveBeenCalled();
  });

  it('carries on in memory when the store fails, reporting through onStoreError', async () => {
    const broken: IdTokenStore = {
      load: () => Promise.reject(new Error('load failed')),
      save: () => Promise.reject(new Error('save failed')),
      clear: () => Promise.resolve(),
    };
    const onStoreError = vi.fn();
    const token = idToken(T0 + HOUR);
    const source = createIdTokenSource({
      provider: () => token,
      store: broken,
      now: () => T0,
      onStoreError,
    });
    await expect(source.get('main')).resolves.toMatchObject({ token });
    expect(onStoreError).toHaveBeenCalledTimes(2);
  });

  it('rejects with the abort reason when the signal aborts, leaving the shared call running', async () => {
    const pending = deferred<string>();
    const provider = vi.fn(() => pending.promise);
    const source = createIdTokenSource({ provider, now: () => T0 });
    const controller = new AbortController();
    const aborted = source.get('main', { signal: controller.signal });
    const other = source.get('main');
    controller.abort(new Error('user cancelled'));
    await expect(aborted).rejects.toThrow('user cancelled');
    pending.resolve(idToken(T0 + HOUR));
    await expect(other).resolves.toMatchObject({ inGrace: false });
    expect(provider).toHaveBeenCalledTimes(1);
  });

  it('does not ask a failing provider again for providerRetryMs', async () => {
    const time = clock();
    const token = idToken(T0 + HOUR);
    const provider = vi.fn<() => string | Promise<string>>(() => token);
    const source = createIdTokenSource({ provider, now: time.now, providerRetryMs: 30_000 });
    await source.get('standby');
    provider.mockImplementation(() => {
      throw new Error('identity provider down');
    });
    time.set(T0 + 2 * HOUR);
    await expect(source.get('standby')).resolves.toMatchObject({ token, inGrace: true });
    time.set(T0 + 2 * HOUR + 29_999);
    await expect(source.get('standby')).resolves.toMatchObject({ token, inGrace: true });
    await expect(source.get('main')).resolves.toMatchObject({ token, inGrace: false });
    expect(provider).toHaveBeenCalledTimes(2);
    time.set(T0 + 2 * HOUR + 30_000);
    const fresh = idToken(T0 + 4 * HOUR);
    provider.mockImplementation(() => fresh);
    await expect(source.get('main')).resolves.toMatchObject({ token: fresh, inGrace: false });
    expect(provider).toHaveBeenCalledTimes(3);
  });

  it('asks a failing provider again within providerRetryMs when main refused the token it falls back on', async () => {
    const time = clock();
    const token = idToken(T0 + HOUR);
    const provider = vi.fn<() => string | Promise<string>>(() => token);
    const source = createIdTokenSource({ provider, now: time.now, providerRetryMs: 30_000 });
    await source.get('main');
    provider.mockImplementation(() => {
      throw new Error('identity provider down');
    });
    time.set(T0 + 2 * HOUR);
    await expect(source.get('main')).resolves.toMatchObject({ token });
    expect(provider).toHaveBeenCalledTimes(2);
    // Main answered 401 to that token: a service is reachable again, so the provider is asked.
    const fresh = idToken(T0 + 4 * HOUR);
    provider.mockImplementation(() => fresh);
    time.set(T0 + 2 * HOUR + 1_000);
    await expect(source.get('main', { forceRefresh: true })).resolves.toMatchObject({
      token: fresh,
    });
    expect(provider).toHaveBeenCalledTimes(3);
  });

  it('asks a failing provider again at every call while there is no token to fall back on', async () => {
    const time = clock();
    const provider = vi.fn<() => string | Promise<string>>(() => {
      throw new Error('offline');
    });
    const source = createIdTokenSource({ provider, now: time.now, providerRetryMs: 30_000 });
    for (const at of [T0, T0 + 1_000, T0 + 2_000]) {
      time.set(at);
      await expect(source.get('main')).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        reason: 'id-token-provider-failed',
      });
    }
    expect(provider).toHaveBeenCalledTimes(3);
    const token = idToken(T0 + HOUR);
    provider.mockImplementation(() => token);
    time.set(T0 + 3_000);
    await expect(source.get('main')).resolves.toMatchObject({ token });
  });

  it('falls back when the provider does not answer within providerTimeoutMs, and keeps its late token', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const time = clock();
      const token = idToken(T0 + HOUR);
      const late = deferred<string>();
      const provider = vi.fn<() => string | Promise<string>>(() => token);
      const source = createIdTokenSource({ provider, now: time.now, providerTimeoutMs: 5_000 });
      await source.get('standby');
      provider.mockImplementation(() => late.promise);
      time.set(T0 + 2 * HOUR);
      const result = source.get('standby');
      await vi.advanceTimersByTimeAsync(5_000);
      await expect(result).resolves.toMatchObject({ token, inGrace: true });
      const fresh = idToken(T0 + 5 * HOUR);
      late.resolve(fresh);
      await vi.advanceTimersByTimeAsync(0);
      expect(source.expiresAt).toBe(Math.floor((T0 + 5 * HOUR) / 1000) * 1000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('validates its options with an InvalidOptionError naming the option', () => {
    expect(() => createIdTokenSource({ provider: 'x' as never })).toThrow(/provider/);
    expect(() => createIdTokenSource({ provider: () => '', graceMs: -1 })).toThrow(/graceMs/);
    // The spec's grace is 24 h: a longer one would send tokens the standby refuses.
    expect(() => createIdTokenSource({ provider: () => '', graceMs: GRACE + 1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', option: 'graceMs' }),
    );
  });

  it('accepts exactly while now <= exp + grace (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2_000_000_000 }),
        fc.integer({ min: 0, max: GRACE }),
        fc.integer({ min: -5_000, max: 5_000 }),
        async (expSeconds, graceMs, offsetMs) => {
          const exp = expSeconds * 1000;
          let now = exp - HOUR;
          let fail = false;
          const source = createIdTokenSource({
            provider: () => (fail ? Promise.reject(new Error('down')) : idToken(exp)),
            now: () => now,
            graceMs,
          });
          await source.get('standby');
          fail = true;
          now = exp + graceMs + offsetMs;
          const outcome = await source.get('standby').then(
            (result) => result.inGrace || now < exp,
            (error: { code?: string }) => error.code,
          );
          if (now <= exp + graceMs) expect(outcome).toBe(true);
          else expect(outcome).toBe('ID_TOKEN_EXPIRED');
        },
      ),
      { numRuns: 200 },
    );
  });
});
