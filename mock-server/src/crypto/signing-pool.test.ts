import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signCompactJws } from './jws.js';
import { generateRsaKey, type RsaKey } from './rsa-key.js';
import {
  createSigningPool,
  defaultSigningThreads,
  resolveSigningThreads,
  type SigningPool,
} from './signing-pool.js';

/** OS threads of this process (Linux): worker threads are real threads. */
const osThreads = () => readdirSync('/proc/self/task').length;

describe('createSigningPool', () => {
  let pool: SigningPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  const header = (key: RsaKey) => ({ alg: 'RS256', kid: key.kid, typ: 'JWT' });

  it.each([0, 2])('signs exactly what signCompactJws signs, in order (%i threads)', async (n) => {
    pool = createSigningPool({ threads: n });
    expect(pool.threads).toBe(n);
    const key = await generateRsaKey();
    const payloads = [{ ItemA: true, sub: 'u1' }, { ItemB: true }, { release: ['J1', 'J2'] }];
    const tokens = await pool.signTokens(header(key), payloads, key.privateKey);
    // RSASSA-PKCS1-v1_5 is deterministic: the same input and key give the same token.
    expect(tokens).toEqual(payloads.map((p) => signCompactJws(header(key), p, key.privateKey)));
  });

  it('keeps every concurrent call apart when calls share a batch, whatever their key', async () => {
    pool = createSigningPool({ threads: 2 });
    const keys = [await generateRsaKey(), await generateRsaKey()];
    const calls = Array.from({ length: 60 }, (_, i) => {
      const key = keys[i % 2]!;
      const payloads = Array.from({ length: (i % 3) + 1 }, (_, j) => ({ call: i, token: j }));
      return { key, payloads, signed: pool!.signTokens(header(key), payloads, key.privateKey) };
    });
    for (const { key, payloads, signed } of calls) {
      expect(await signed).toEqual(
        payloads.map((p) => signCompactJws(header(key), p, key.privateKey)),
      );
    }
  });

  it('signs with a key made after the threads started', async () => {
    pool = createSigningPool({ threads: 2 });
    const first = await generateRsaKey();
    await pool.signTokens(header(first), [{ n: 1 }], first.privateKey);
    const rotated = await generateRsaKey();
    const [token] = await pool.signTokens(header(rotated), [{ n: 2 }], rotated.privateKey);
    expect(token).toBe(signCompactJws(header(rotated), { n: 2 }, rotated.privateKey));
  });

  it('rejects a call whose signing fails and keeps serving the next ones', async () => {
    pool = createSigningPool({ threads: 1 });
    const key = await generateRsaKey();
    await expect(pool.signTokens(header(key), [{ n: 1 }], key.publicKey)).rejects.toThrow();
    const [token] = await pool.signTokens(header(key), [{ n: 2 }], key.privateKey);
    expect(token).toBe(signCompactJws(header(key), { n: 2 }, key.privateKey));
  });

  it('ends its threads on close and refuses calls afterwards', async () => {
    const key = await generateRsaKey();
    const before = osThreads();
    pool = createSigningPool({ threads: 2 });
    await Promise.all([1, 2, 3, 4].map((n) => pool!.signTokens({}, [{ n }], key.privateKey)));
    expect(osThreads()).toBeGreaterThanOrEqual(before + 2);
    const waiting = expect(pool.signTokens({}, [{ n: 5 }], key.privateKey)).rejects.toThrow(
      /closed/,
    );
    await pool.close();
    await waiting;
    // A worker's OS thread can outlive its 'exit' event by a moment: wait for it, not for ever.
    await vi.waitFor(() => expect(osThreads()).toBe(before), { timeout: 5000, interval: 20 });
    await expect(pool.signTokens({}, [{ n: 6 }], key.privateKey)).rejects.toThrow(/closed/);
    await pool.close(); // idempotent
  });

  it('starts nothing with 0 threads', async () => {
    const key = await generateRsaKey();
    const before = osThreads();
    pool = createSigningPool({ threads: 0 });
    await pool.signTokens({}, [{ n: 1 }], key.privateKey);
    expect(osThreads()).toBe(before);
  });

  it('refuses a thread count that is not an integer from 0 to 256', () => {
    for (const threads of [-1, 1.5, 257, Number.NaN]) {
      expect(() => createSigningPool({ threads })).toThrow(TypeError);
    }
    expect(() => resolveSigningThreads(-1, 'signingThreads')).toThrow(/signingThreads/);
    expect(resolveSigningThreads(undefined)).toBe(defaultSigningThreads());
    expect(resolveSigningThreads(3)).toBe(3);
  });
});
