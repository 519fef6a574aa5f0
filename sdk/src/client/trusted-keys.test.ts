// The key source an operation verifies with: a kid held or kept needs no fetch, a kid the service
// lacked waits for the cooldown, one fetch per service is shared, and new trusted keys are saved.
import { trustContext } from '@test/helpers/client-context.js';
import { fakeServices } from '@test/helpers/fake-licensing.js';
import { readStore } from '@test/helpers/store-documents.js';
import { describe, expect, it } from 'vitest';
import { keysWithKid } from './trusted-keys.js';

const T0 = Date.UTC(2030, 0, 1);
const MAIN_KID = fakeServices.keys.main.kid;
const STANDBY_KID = fakeServices.keys.standby.kid;

describe('keysWithKid', () => {
  it('fetches the service JWK set for a kid it does not hold, trusts it and saves it', async () => {
    const { context, request, store, keys } = trustContext({ local: { now: T0 } });
    const source = await keysWithKid(context, 'main', MAIN_KID, undefined);
    expect(source).toBe(keys.main);
    expect(source.find(MAIN_KID)).toBeDefined();
    expect(request).toHaveBeenCalledTimes(1);
    expect(request.mock.calls[0]![0]).toBe('main');
    expect(request.mock.calls[0]![1]).toMatchObject({ path: '/.well-known/jwks.json' });
    expect((await readStore(store)).keys.main).toEqual([fakeServices.keys.main.jwk]);
    // Held now: no second fetch.
    await keysWithKid(context, 'main', MAIN_KID, undefined);
    expect(request).toHaveBeenCalledTimes(1);
    expect(context.jwksFetches.size).toBe(0);
  });

  it('uses a key the store kept, checked, without a fetch', async () => {
    const { context, request, keys } = trustContext({ local: { now: T0 } });
    keys.standby.restore(fakeServices.jwks.standby.keys);
    const source = await keysWithKid(context, 'standby', STANDBY_KID, undefined);
    expect(source.find(STANDBY_KID)).toBeDefined();
    expect(request).not.toHaveBeenCalled();
  });

  it('lets the clock catch up with the services time the JWK set answer showed', async () => {
    const ahead = T0 + 3_600_000;
    const { context, clock } = trustContext({ local: { now: T0 }, serviceTime: ahead });
    await keysWithKid(context, 'main', MAIN_KID, undefined);
    expect(clock.offsetMs).toBe(3_600_000);
    expect(clock.mark).toBe(ahead);
    // Without a Date, the clock stays as it was.
    const plain = trustContext({ local: { now: T0 } });
    await keysWithKid(plain.context, 'main', MAIN_KID, undefined);
    expect(plain.clock.offsetMs).toBe(0);
    expect(plain.clock.mark).toBe(0);
  });

  it('does not save when the fetched set brought no new trusted key', async () => {
    const { context, request, store, keys } = trustContext({
      local: { now: T0 },
      jwks: { main: { keys: [] } },
    });
    const source = await keysWithKid(context, 'main', MAIN_KID, undefined);
    expect(source).toBe(keys.main);
    expect(source.find(MAIN_KID)).toBeUndefined();
    expect(request).toHaveBeenCalledTimes(1);
    expect(await store.load()).toBeUndefined();
  });

  it('refetches a kid the service lacked only after the cooldown, on the local clock', async () => {
    const local = { now: T0 };
    const { context, request, clock } = trustContext({
      local,
      cooldownMs: 30_000,
      jwks: { main: { keys: [] } },
    });
    await keysWithKid(context, 'main', MAIN_KID, undefined);
    expect(request).toHaveBeenCalledTimes(1);
    // The services' offset does not move the cooldown: it runs on the local clock.
    clock.observe(T0 + 3_600_000);
    local.now = T0 + 29_999;
    const refused = await keysWithKid(context, 'main', MAIN_KID, undefined);
    expect(refused.refusal(MAIN_KID).reason).toBe('kid');
    expect(request).toHaveBeenCalledTimes(1);
    local.now = T0 + 30_000;
    await keysWithKid(context, 'main', MAIN_KID, undefined);
    expect(request).toHaveBeenCalledTimes(2);
  });

  it('shares one fetch per service among concurrent callers', async () => {
    const { context, request } = trustContext({ local: { now: T0 } });
    const [a, b] = await Promise.all([
      keysWithKid(context, 'main', MAIN_KID, undefined),
      keysWithKid(context, 'main', 'other-kid', undefined),
    ]);
    expect(a).toBe(b);
    expect(request).toHaveBeenCalledTimes(1);
    await keysWithKid(context, 'standby', STANDBY_KID, undefined);
    expect(request).toHaveBeenCalledTimes(2);
    expect(context.jwksFetches.size).toBe(0);
  });

  it('throws the transport failure and fetches again at the next call', async () => {
    const outage = new Error('JWKS outage');
    const jwks: Record<string, unknown> = { main: outage };
    const { context, request } = trustContext({ local: { now: T0 }, jwks });
    await expect(keysWithKid(context, 'main', MAIN_KID, undefined)).rejects.toBe(outage);
    expect(context.jwksFetches.size).toBe(0);
    await expect(keysWithKid(context, 'main', MAIN_KID, undefined)).rejects.toBe(outage);
    expect(request).toHaveBeenCalledTimes(2);
  });

  it('stops waiting when the caller aborts, while the shared fetch goes on', async () => {
    const { context, request } = trustContext({ local: { now: T0 } });
    const controller = new AbortController();
    const reason = new Error('aborted by the app');
    controller.abort(reason);
    await expect(keysWithKid(context, 'main', MAIN_KID, controller.signal)).rejects.toBe(reason);
    const source = await keysWithKid(context, 'main', MAIN_KID, undefined);
    expect(source.find(MAIN_KID)).toBeDefined();
    expect(request).toHaveBeenCalledTimes(1);
  });
});
