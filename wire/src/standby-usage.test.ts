// The standby usage summary both packages print from (the SDK's `standby-licensing usage`, the
// mock server's QA console): the same rows whether an event's time comes as a bigint (the event
// client) or as the digits of parsed feed JSON (the mock's store), for any events and window.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarizeStandbyUsage } from './standby-usage.js';

const T0 = 1_900_000_000;

// Few consumers and lease ids, so that grants, renewals and releases of one lease meet often.
const consumer = fc.constantFrom('ann', 'ann', 'bo', 'org%2Fteam', 'service-key-0123456789abcdef');
const item = fc.constantFrom('Pro', 'Basic', 'Team');
const leaseId = fc.integer({ min: 1, max: 3 }).map((n) => `L${n}`);
const seconds = fc.integer({ min: 0, max: 200 }).map((n) => T0 + n * 300);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const event = fc
  .record({
    eventType: fc.constantFrom(
      'StandbyLeaseGranted',
      'StandbyLeaseRenewed',
      'StandbyLeaseReleased',
      'LicenseProvisioned',
    ),
    eventSourceId: fc.constantFrom('standby', 'standby', 'standby', 'main'),
    eventObjectId: maybe(consumer),
    received: seconds,
    leaseId: maybe(leaseId),
    item: maybe(item),
    iat: maybe(seconds),
    hours: maybe(fc.integer({ min: 0, max: 10 })),
    hw: maybe(fc.constantFrom('d1', 'd2', 'd3', '')),
    grace: maybe(fc.constantFrom(0, 1, 2, 3600, 86_400, -5, 'x')),
  })
  .map((e) => ({
    eventType: e.eventType,
    eventSourceId: e.eventSourceId,
    ...(e.eventObjectId === undefined ? {} : { eventObjectId: e.eventObjectId }),
    eventReceived: BigInt(e.received) * 1_000_000_000n + 7n,
    eventReceived_str: `${BigInt(e.received) * 1_000_000_000n + 7n}`,
    data: {
      ...(e.leaseId === undefined ? {} : { leaseId: e.leaseId }),
      ...(e.item === undefined ? {} : { licensedItemName: e.item }),
      ...(e.iat === undefined ? {} : { iat: e.iat }),
      ...(e.iat === undefined || e.hours === undefined ? {} : { exp: e.iat + e.hours * 3600 }),
      ...(e.hw === undefined ? {} : { hw: e.hw }),
      ...(e.grace === undefined ? {} : { idTokenGraceSeconds: e.grace }),
    },
  }));

describe('summarizeStandbyUsage', () => {
  it('gives the same rows from parsed feed JSON (eventReceived_str) as from bigint times', () => {
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 10, maxLength: 80 }),
        maybe(seconds),
        maybe(seconds),
        (events, from, to) => {
          const window = {
            ...(from === undefined ? {} : { from: BigInt(from) * 1_000_000_000n }),
            ...(to === undefined ? {} : { to: BigInt(to) * 1_000_000_000n }),
          };
          // As the mock reads them from its store: parsed JSON, eventReceived from the digits.
          const parsed = events.map(({ eventReceived: _, ...rest }) => rest);
          expect(summarizeStandbyUsage(parsed, window)).toEqual(
            summarizeStandbyUsage(events, window),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
