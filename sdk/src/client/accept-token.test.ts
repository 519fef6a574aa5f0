// How operations accept tokens (DECISIONS.md "Lease trust (third wave)", "Trust while the app
// runs (fourth wave)"): a fresh answer is judged on the services' time (its Date where it agrees
// with the token's signed iat, else that iat, within 24 h of the clock), never earlier than the
// running time; a kept lease on the trusted time; the clock learns from verified answers, and an
// accepted kept lease is held (the running time and the mark rise to it). Real keys and
// signatures; the local and monotonic clocks are injected.

import { describe, expect, it } from 'vitest';
import { trustContext } from '../../test/helpers/client-context.js';
import { fakeServices, signAs } from '../../test/helpers/fake-licensing.js';
import { TokenInvalidError } from '../errors.js';
import { readLeaseToken } from '../lease/lease-token.js';
import { MAX_CLOCK_SKEW_MS } from '../lease/trusted-clock.js';
import type { LeaseClaims } from '../types.js';
import {
  acceptFreshAnswer,
  acceptFreshLease,
  acceptKeptLease,
  learnServiceTime,
} from './accept-token.js';

const T0 = Date.UTC(2030, 0, 1);
const S0 = T0 / 1000;
const HOUR = 3_600_000;

const leaseClaims = (iat = S0, extra: Record<string, unknown> = {}) => ({
  ItemA: true,
  jti: 'J1',
  lic: 'L1',
  iat,
  exp: iat + 8 * 3600,
  ...extra,
});

async function refusal(promise: Promise<unknown>): Promise<TokenInvalidError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TokenInvalidError);
  return error as TokenInvalidError;
}

describe('acceptFreshLease', () => {
  it('verifies a lease for the item, fetching the service keys it lacks', async () => {
    const { context, request } = trustContext({ local: { now: T0 } });
    const token = signAs('standby', leaseClaims());
    const claims = await acceptFreshLease(
      context,
      'standby',
      token,
      'ItemA',
      { serviceTime: T0 },
      undefined,
    );
    expect(claims).toEqual(leaseClaims());
    expect(request).toHaveBeenCalledTimes(1);
    expect(request.mock.calls[0]![0]).toBe('standby');
    // Given as read, with its keys held: no fetch.
    await acceptFreshLease(
      context,
      'standby',
      readLeaseToken(token),
      'ItemA',
      { serviceTime: T0 },
      undefined,
    );
    expect(request).toHaveBeenCalledTimes(1);
  });

  it("judges on the answer's Date where it agrees with the signed iat: a local clock a day off changes nothing", async () => {
    const { context } = trustContext({ local: { now: T0 - 23 * HOUR } });
    const token = signAs('main', leaseClaims());
    await expect(
      acceptFreshLease(context, 'main', token, 'ItemA', { serviceTime: T0 }, undefined),
    ).resolves.toMatchObject({ lic: 'L1' });
    // A Date 40 s after the iat agrees with it, so it is the time judged at: a token whose exp
    // lies 30 s before its iat has expired by then (beyond the tolerance), not at the iat.
    const odd = signAs('main', leaseClaims(S0, { exp: S0 - 30 }));
    const at = (date: number) =>
      acceptFreshLease(context, 'main', odd, 'ItemA', { serviceTime: date }, undefined);
    expect((await refusal(at(T0 + 40_000))).reason).toBe('expired');
    await expect(at(T0)).resolves.toBeDefined();
  });

  it("takes the signed iat where the answer's Date disagrees with it: a proxy's wrong clock refuses nothing", async () => {
    const { context } = trustContext({ local: { now: T0 } });
    const token = signAs('main', leaseClaims());
    for (const date of [T0 + 9 * HOUR, T0 - HOUR, T0 - 2 * 60_000, 0]) {
      await expect(
        acceptFreshLease(context, 'main', token, 'ItemA', { serviceTime: date }, undefined),
      ).resolves.toMatchObject({ lic: 'L1' });
    }
  });

  it('never judges a fresh answer earlier than the running time: a replayed old answer is old', async () => {
    const monotonic = { now: 0 };
    const { context, clock } = trustContext({ local: { now: T0 }, monotonic });
    // A genuine answer at T0 anchors the running time; 9 hours of running pass.
    clock.observeSigned(T0);
    monotonic.now = 9 * HOUR;
    const replayed = signAs('main', leaseClaims());
    expect(
      (
        await refusal(
          acceptFreshLease(context, 'main', replayed, 'ItemA', { serviceTime: T0 }, undefined),
        )
      ).reason,
    ).toBe('expired');
    const fresh = signAs('main', leaseClaims(S0 + 9 * 3600));
    await expect(
      acceptFreshLease(context, 'main', fresh, 'ItemA', { serviceTime: undefined }, undefined),
    ).resolves.toBeDefined();
  });

  it('without a Date, judges on the token iat when it lies within 24 h of the clock, else on the clock', async () => {
    const token = signAs('main', leaseClaims());
    const answer = { serviceTime: undefined };
    for (const offset of [MAX_CLOCK_SKEW_MS, -MAX_CLOCK_SKEW_MS, 12 * HOUR]) {
      const { context } = trustContext({ local: { now: T0 + offset } });
      await expect(
        acceptFreshLease(context, 'main', token, 'ItemA', answer, undefined),
      ).resolves.toBeDefined();
    }
    // More than 24 h behind: judged on the clock, the token's iat is ahead.
    const behind = trustContext({ local: { now: T0 - MAX_CLOCK_SKEW_MS - 1 } }).context;
    expect(
      (await refusal(acceptFreshLease(behind, 'main', token, 'ItemA', answer, undefined))).reason,
    ).toBe('not-yet-valid');
    // More than 24 h ahead: judged on the clock, the lease has expired.
    const ahead = trustContext({ local: { now: T0 + MAX_CLOCK_SKEW_MS + 1 } }).context;
    expect(
      (await refusal(acceptFreshLease(ahead, 'main', token, 'ItemA', answer, undefined))).reason,
    ).toBe('expired');
  });

  it('never judges at an iat that is not a number', async () => {
    // The fake services' certificates end at 2040-01-01; the clock reads 6 h before that.
    const end = Date.UTC(2040, 0, 1);
    const { context } = trustContext({ local: { now: end - 6 * HOUR } });
    const token = signAs('main', leaseClaims(end / 1000, { iat: String(end / 1000 + 10 * 3600) }));
    const error = await refusal(
      acceptFreshLease(context, 'main', token, 'ItemA', { serviceTime: undefined }, undefined),
    );
    // Judged on the clock, while the certificates are valid: refused for its iat alone.
    expect(error.reason).toBe('malformed');
  });

  it('never judges at an iat that is not finite: a Date that agrees with nothing stands', async () => {
    // The fake services' certificates end at 2040-01-01: the clock reads an hour after that, the
    // answer's Date an hour before (within 24 h, so the Date is the time judged at).
    const end = Date.UTC(2040, 0, 1);
    const { context } = trustContext({ local: { now: end + HOUR } });
    const read = readLeaseToken(signAs('main', leaseClaims(end / 1000 - 2 * 3600)));
    // As read from a payload holding `"iat":1e400`.
    const infinite = { ...read, claims: { ...read.claims, iat: Number.POSITIVE_INFINITY } };
    const error = await refusal(
      acceptFreshLease(context, 'main', infinite, 'ItemA', { serviceTime: end - HOUR }, undefined),
    );
    // Judged at the Date, while the certificates are valid: refused for its iat alone.
    expect(error.reason).toBe('malformed');
  });

  it('rejects with the signal reason, fetching nothing, once the signal is aborted', async () => {
    const { context, request } = trustContext({ local: { now: T0 } });
    const token = signAs('main', leaseClaims());
    const reason = new Error('stop');
    const signal = AbortSignal.abort(reason);
    const answer = { serviceTime: T0 };
    for (const accepting of [
      acceptFreshLease(context, 'main', token, 'ItemA', answer, signal),
      acceptFreshAnswer(context, 'main', token, answer, signal),
      acceptKeptLease(context, 'main', token, 'ItemA', { signal }),
    ]) {
      await expect(accepting).rejects.toBe(reason);
    }
    expect(request).not.toHaveBeenCalled();
  });

  it('reads the kid of a token given as text: a key held means no fetch', async () => {
    const { context, request, keys } = trustContext({ local: { now: T0 } });
    keys.main.restore(fakeServices.jwks.main.keys);
    const token = signAs('main', leaseClaims());
    const answer = { serviceTime: T0 };
    await acceptFreshLease(context, 'main', token, 'ItemA', answer, undefined);
    await acceptFreshAnswer(context, 'main', token, answer, undefined);
    await acceptKeptLease(context, 'main', token, 'ItemA', { signal: undefined });
    expect(request).not.toHaveBeenCalled();
  });

  it('refuses a token that is no lease for the item or not for this device', async () => {
    const { context } = trustContext({ local: { now: T0 }, hardwareId: 'pc-2' });
    const answer = { serviceTime: T0 };
    const other = signAs('main', leaseClaims(S0, { hw: 'pc-1' }));
    expect(
      (await refusal(acceptFreshLease(context, 'main', other, 'ItemA', answer, undefined))).reason,
    ).toBe('hardware');
    const mine = signAs('main', leaseClaims(S0, { hw: 'pc-2' }));
    expect(
      (await refusal(acceptFreshLease(context, 'main', mine, 'ItemB', answer, undefined))).reason,
    ).toBe('item');
    await expect(
      acceptFreshLease(context, 'main', mine, 'ItemA', answer, undefined),
    ).resolves.toBeDefined();
  });

  it('refuses a token signed by the other service', async () => {
    const { context } = trustContext({ local: { now: T0 } });
    const token = signAs('main', leaseClaims());
    const error = await refusal(
      acceptFreshLease(context, 'standby', token, 'ItemA', { serviceTime: T0 }, undefined),
    );
    expect(error.reason).toBe('kid');
  });
});

describe('acceptFreshAnswer', () => {
  it('verifies a signed answer that is no lease, judged on the services time', async () => {
    const { context } = trustContext({ local: { now: T0 - 20 * HOUR } });
    const release = { J1: true, iss: 'main', iat: S0, exp: S0 + 3600 };
    const token = signAs('main', release);
    expect(await acceptFreshAnswer(context, 'main', token, { serviceTime: T0 }, undefined)).toEqual(
      release,
    );
    expect(
      await acceptFreshAnswer(
        context,
        'main',
        readLeaseToken(token),
        { serviceTime: undefined },
        undefined,
      ),
    ).toEqual(release);
    // A Date that disagrees with the signed iat (a proxy's clock) does not make it expired.
    const late = { serviceTime: T0 + 2 * HOUR };
    expect(await acceptFreshAnswer(context, 'main', token, late, undefined)).toEqual(release);
  });
});

describe('learnServiceTime', () => {
  const claims = (iat: number) => ({ iat, exp: iat + 3600 }) as LeaseClaims;

  it('learns the services time from the answer Date where it agrees with the latest iat', () => {
    const { context, clock } = trustContext({ local: { now: T0 } });
    learnServiceTime(context, { serviceTime: T0 + HOUR + 30_000 }, [claims(S0 + 3600)]);
    expect(clock.offsetMs).toBe(HOUR + 30_000);
    expect(clock.mark).toBe(T0 + HOUR + 30_000);
  });

  it("learns from the latest iat where the Date disagrees (a proxy's clock)", () => {
    const { context, clock } = trustContext({ local: { now: T0 } });
    learnServiceTime(context, { serviceTime: T0 + HOUR }, [claims(S0 + 7200)]);
    expect(clock.offsetMs).toBe(2 * HOUR);
    expect(clock.mark).toBe(T0 + 2 * HOUR);
  });

  it('without a Date, learns from the latest iat of the verified tokens', () => {
    const { context, clock } = trustContext({ local: { now: T0 } });
    learnServiceTime(context, { serviceTime: undefined }, [
      claims(S0 + 60),
      claims(S0 + 7200),
      claims(S0),
    ]);
    expect(clock.offsetMs).toBe(2 * HOUR);
    expect(clock.anchored).toBe(true);
  });

  it('learns nothing from an answer without a Date and without tokens', () => {
    const { context, clock } = trustContext({ local: { now: T0 } });
    learnServiceTime(context, { serviceTime: undefined }, []);
    expect(clock.anchored).toBe(false);
    expect(clock.snapshot()).toEqual({ timeMark: 0, offsetMs: 0, usedUntil: T0 });
  });
});

describe('acceptKeptLease', () => {
  it('verifies a kept lease with the keys held, on the corrected clock, and raises the mark to it', async () => {
    const { context, keys, clock, request } = trustContext({ local: { now: T0 + HOUR } });
    keys.standby.restore(fakeServices.jwks.standby.keys);
    clock.observeSigned(T0 + 2 * HOUR);
    const token = signAs('standby', leaseClaims());
    const accepted = await acceptKeptLease(context, 'standby', token, 'ItemA', false);
    expect(accepted).toEqual({ item: 'ItemA', claims: leaseClaims() });
    expect(request).not.toHaveBeenCalled();
    expect(clock.mark).toBe(T0 + 2 * HOUR);
    const parsed = readLeaseToken(token);
    await acceptKeptLease(context, 'standby', parsed, undefined, false);
    expect(clock.mark).toBe(T0 + 2 * HOUR);
  });

  it('finds the item the lease grants when not told', async () => {
    const { context } = trustContext({ local: { now: T0 } });
    const token = signAs('main', leaseClaims(S0, { ItemA: undefined, ItemQ: true }));
    expect(
      (await acceptKeptLease(context, 'main', token, undefined, { signal: undefined })).item,
    ).toBe('ItemQ');
  });

  it('fetches keys it lacks only when allowed to, and never without', async () => {
    const { context, request } = trustContext({ local: { now: T0 } });
    const token = signAs('main', leaseClaims());
    expect((await refusal(acceptKeptLease(context, 'main', token, 'ItemA', false))).reason).toBe(
      'kid',
    );
    expect(request).not.toHaveBeenCalled();
    await expect(
      acceptKeptLease(context, 'main', token, 'ItemA', { signal: undefined }),
    ).resolves.toBeDefined();
    expect(request).toHaveBeenCalledTimes(1);
  });

  it('judges on the local clock corrected by the offset: an expired lease and a lease issued ahead', async () => {
    const { context, clock } = trustContext({ local: { now: T0 + 9 * HOUR } });
    const token = signAs('main', leaseClaims());
    const fetch = { signal: undefined };
    expect((await refusal(acceptKeptLease(context, 'main', token, 'ItemA', fetch))).reason).toBe(
      'expired',
    );
    expect(clock.mark).toBe(0);
    // 9 h local, 2 h on the services clock: corrected by the offset learnt (-7 h), it holds.
    clock.restore({ timeMark: 0, offsetMs: -7 * HOUR, usedUntil: 0 });
    await expect(acceptKeptLease(context, 'main', token, 'ItemA', fetch)).resolves.toBeDefined();
    expect(clock.mark).toBe(T0 + 2 * HOUR);
  });

  it('refuses a kept lease for another device and does not raise the mark', async () => {
    const { context, clock } = trustContext({ local: { now: T0 }, hardwareId: 'pc-2' });
    const token = signAs('main', leaseClaims(S0, { hw: 'pc-1' }));
    const error = await refusal(
      acceptKeptLease(context, 'main', token, 'ItemA', { signal: undefined }),
    );
    expect(error.reason).toBe('hardware');
    expect(clock.mark).toBe(0);
  });
});
