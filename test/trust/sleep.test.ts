// Sleep and wake (DECISIONS.md "Trust while the app runs (fourth wave)"): timers fire late after
// a system sleep (Node's timers count running time, not the wall clock). While it holds leases
// the keeper compares the trusted time with each lease's refresh time at least every 60 s, so a
// renewal that fell due during a sleep starts within 60 s of wake, not hours later. Finding 9 of
// issue 28. The sleep is simulated: the wall clock (the client's `now`, and the fake services')
// jumps 7 hours while the fake timers and the monotonic clock do not move. Rules:
// sdk/src/client/lease-keeper.ts.
import {
  authzHandler,
  makeClient,
  NOW,
  serviceClock,
} from '@sdk-test/helpers/licensing-test-setup.js';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

const HOUR = 3_600_000;
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
  serviceClock.now = () => NOW;
});
afterAll(() => server.close());

describe('a laptop that sleeps through refreshAt', () => {
  it('renews within 60 s of wake', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    const wall = { at: NOW };
    serviceClock.now = () => wall.at;
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client, named } = makeClient({ now: () => wall.at });
    const [lease] = (await client.checkout(['ItemA'])).leases;
    client.keepAlive([lease!], { jitterRatio: 0 });
    expect(main.hits.count).toBe(1);

    // An hour of running: nothing is due yet (refreshAt is 6 h after issue).
    wall.at += HOUR;
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(main.hits.count).toBe(1);

    // The lid closes for 7 hours: the wall clock moves, the timers and performance.now() do not.
    wall.at += 7 * HOUR;
    // Within 60 s of running after wake, the renewal has gone out and come back.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(main.hits.count).toBe(2);
    expect(named('leaseRenewed')).toHaveLength(1);
    expect(client.has('ItemA')).toBe(true);
    await client.close();
  });
});
