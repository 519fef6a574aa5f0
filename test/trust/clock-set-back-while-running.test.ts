// A running client's time never goes back (DECISIONS.md "Trust while the app runs (fourth
// wave)"): its trusted time is the largest of the local clock corrected by the learnt offset,
// the last trusted time it judged on plus the monotonic time since (`performance.now()`), and
// the store's time mark; `has()`, `status()`, the keeper and `verify()` judge on it. A clock set
// back while the app runs never extends a lease: `has(item)` turns false at the lease's `exp` on
// that time. Finding 2 of issue 28: `has()` stayed true for ever. The monotonic clock is faked
// here (only `performance`), so 8 hours pass in a moment while the app's wall clock is set back.
// Rules: sdk/src/lease/trusted-clock.ts (now), sdk/src/client/client-status.ts.

import { rejection } from '@sdk-test/helpers/rejection.js';
import { offline } from '@test/helpers/lying-network.js';
import { clientFor, type MockLicensing, startMockLicensing } from '@test/helpers/mock-licensing.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

const MINUTE = 60_000;
const HOUR = 3_600_000;

let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing();
});
afterEach(() => vi.useRealTimers());
afterAll(() => mock.close());

/** A client with a settable wall clock (real time plus `skewMs`) and a network that can go. */
function settableClient() {
  const clock = { skewMs: 0 };
  const net = { up: true };
  const { client } = clientFor(mock, {
    now: () => Date.now() + clock.skewMs,
    fetch: (input, init) => (net.up ? fetch(input, init) : offline(input, init)),
  });
  return { client, clock, net };
}

describe('a clock set back while the app runs', () => {
  it('has() turns false at the lease’s exp on the running time, and status() drops it', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { client, clock, net } = settableClient();
    const [lease] = (await client.checkout(['ItemA'])).leases;
    expect(client.has('ItemA')).toBe(true);
    net.up = false;

    // The user sets the clock back 7 hours; the app keeps running for 7 h 59 min.
    clock.skewMs = -7 * HOUR;
    vi.advanceTimersByTime(8 * HOUR - MINUTE);
    expect(client.has('ItemA')).toBe(true);
    expect(client.status().leases.map((l) => l.leaseId)).toEqual([lease!.leaseId]);

    // Two minutes later the lease's exp has passed on the running time.
    vi.advanceTimersByTime(2 * MINUTE);
    expect(client.has('ItemA')).toBe(false);
    expect(client.status().leases).toEqual([]);
    // verify() of the kept token is refused too: the clock reads earlier than the time mark.
    expect(await rejection(client.verify(lease!.token))).toMatchObject({ code: 'CLOCK_ROLLBACK' });
    await client.close();
  });

  it('set back and forth repeatedly, the lease still ends 8 h after it was issued', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { client, clock, net } = settableClient();
    await client.checkout(['ItemA']);
    net.up = false;
    for (let hour = 1; hour <= 9; hour++) {
      clock.skewMs = hour % 2 === 0 ? 0 : -hour * HOUR;
      vi.advanceTimersByTime(HOUR);
      expect(client.has('ItemA')).toBe(hour < 8);
    }
    await client.close();
  });

  it('a clock that runs ahead and is corrected does not end the lease early for ever', async () => {
    // The control: the clock jumps 20 h ahead (no lease is valid then), then is corrected: the
    // running time comes back with it, because a time at which no lease was valid raised nothing.
    const { client, clock, net } = settableClient();
    await client.checkout(['ItemA']);
    net.up = false;
    clock.skewMs = 20 * HOUR;
    expect(client.has('ItemA')).toBe(false);
    clock.skewMs = 0;
    const again = (await client.restore()).leases;
    expect(again).toHaveLength(1);
    expect(client.has('ItemA')).toBe(true);
    await client.close();
  });
});
