// The mock server does not depend on the SDK, so the QA console's "What the standby granted"
// summarises with a copy of the SDK's summarizeStandbyUsage (mock-server/src/standby/
// standby-usage.ts). This test keeps the two copies equal: on generated event sets (grants,
// renewals, releases, windows, malformed fields, events of other kinds), both give the same rows.
import { summarizeStandbyUsage as sdkSummary } from '@standby-licensing/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarizeStandbyUsage as mockSummary } from '../../mock-server/src/standby/standby-usage.js';

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

describe("the mock's copy of summarizeStandbyUsage", () => {
  it('gives the rows the SDK gives, for any events and window', () => {
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
          expect(mockSummary(events, window)).toEqual(sdkSummary(events, window));
          // As the mock reads them from its store: parsed JSON, eventReceived from the digits.
          const parsed = events.map(({ eventReceived: _, ...rest }) => rest);
          expect(mockSummary(parsed, window)).toEqual(sdkSummary(events, window));
        },
      ),
      { numRuns: 500 },
    );
  });
});
