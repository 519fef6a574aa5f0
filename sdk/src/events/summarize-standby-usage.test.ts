import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type StandbyUsageEvent, summarizeStandbyUsage } from './summarize-standby-usage.js';

const T0 = 1_900_000_000; // seconds
const HOUR = 3600;

/** A standby event received at `at` seconds (its `eventReceived` in ns). */
function standby(
  eventType: string,
  consumer: string,
  at: number,
  data: Record<string, unknown>,
): StandbyUsageEvent {
  return {
    eventType,
    eventSourceId: 'standby',
    eventObjectId: consumer,
    eventReceived: BigInt(at) * 1_000_000_000n,
    data,
  };
}

const grant = (consumer: string, leaseId: string, item: string, iat: number, extra = {}) =>
  standby('StandbyLeaseGranted', consumer, iat, {
    leaseId,
    licensedItemName: item,
    iat,
    exp: iat + 8 * HOUR,
    idTokenGraceSeconds: 0,
    ...extra,
  });
const renew = (consumer: string, leaseId: string, item: string, iat: number, extra = {}) =>
  standby('StandbyLeaseRenewed', consumer, iat, {
    leaseId,
    licensedItemName: item,
    iat,
    exp: iat + 8 * HOUR,
    ...extra,
  });
const release = (consumer: string, leaseId: string, at: number, extra = {}) =>
  standby('StandbyLeaseReleased', consumer, at, { leaseId, ...extra });

describe('summarizeStandbyUsage', () => {
  it('counts grants, renewals and releases per consumer and item, sorted', () => {
    const rows = summarizeStandbyUsage([
      grant('bo', 'L1', 'Pro', T0, { hw: 'd1' }),
      grant('ann', 'L2', 'Pro', T0 + 60, { hw: 'd2', idTokenGraceSeconds: 3600 }),
      grant('ann', 'L3', 'Basic', T0 + 120, { hw: 'd2' }),
      renew('ann', 'L2', 'Pro', T0 + 6 * HOUR, { hw: 'd3' }),
      release('ann', 'L3', T0 + 2 * HOUR, { licensedItemName: 'Basic' }),
    ]);
    expect(rows.map((r) => [r.consumer, r.item, r.granted, r.renewed, r.released])).toEqual([
      ['ann', 'Basic', 1, 0, 1],
      ['ann', 'Pro', 1, 1, 0],
      ['bo', 'Pro', 1, 0, 0],
    ]);
    const annPro = rows[1]!;
    expect(annPro.firstGrant).toEqual(new Date((T0 + 60) * 1000));
    expect(annPro.lastExp).toEqual(new Date((T0 + 14 * HOUR) * 1000));
    expect(annPro.devices).toBe(2);
    expect(annPro.graceGrants).toBe(1);
    expect(rows[0]!.graceGrants).toBe(0);
  });

  it('counts a renewed lease once, from its grant to its last exp', () => {
    const [row] = summarizeStandbyUsage([
      grant('ann', 'L1', 'Pro', T0),
      renew('ann', 'L1', 'Pro', T0 + 6 * HOUR),
      renew('ann', 'L1', 'Pro', T0 + 12 * HOUR),
    ]);
    expect(row!.leaseHours).toBe(20);
  });

  it('ends a released lease at its release, and never after its exp', () => {
    const rows = summarizeStandbyUsage([
      grant('ann', 'L1', 'Pro', T0),
      release('ann', 'L1', T0 + 90 * 60),
      grant('ann', 'L2', 'Pro', T0),
      release('ann', 'L2', T0 + 10 * HOUR),
    ]);
    expect(rows[0]!.leaseHours).toBe(1.5 + 8);
    expect(rows[0]!.released).toBe(2);
  });

  it('places a release by its grant when it names no item, and under "" when nothing does', () => {
    const rows = summarizeStandbyUsage([
      grant('ann', 'L1', 'Pro', T0),
      release('ann', 'L1', T0 + HOUR),
      release('ann', 'main-lease', T0 + HOUR, { hw: 'd9' }),
    ]);
    expect(rows.map((r) => [r.item, r.released, r.devices])).toEqual([
      ['', 1, 1],
      ['Pro', 1, 0],
    ]);
    expect(rows[0]!.firstGrant).toBeNull();
    expect(rows[0]!.leaseHours).toBe(0);
  });

  it('counts a lease first seen renewed (main granted it) from that renewal', () => {
    const [row] = summarizeStandbyUsage([renew('ann', 'M1', 'Pro', T0)]);
    expect(row).toMatchObject({ granted: 0, renewed: 1, firstGrant: null, leaseHours: 8 });
  });

  it('keeps events received in [from, to) and skips other sources and kinds', () => {
    const events = [
      grant('ann', 'L1', 'Pro', T0 - 1),
      grant('ann', 'L2', 'Pro', T0),
      grant('ann', 'L3', 'Pro', T0 + HOUR - 1),
      grant('ann', 'L4', 'Pro', T0 + HOUR),
      { ...grant('ann', 'L5', 'Pro', T0), eventSourceId: 'main' },
      standby('LicenseProvisioned', 'ann', T0, { licensedItemName: 'Pro' }),
    ];
    const [row] = summarizeStandbyUsage(events, {
      from: new Date(T0 * 1000),
      to: BigInt(T0 + HOUR) * 1_000_000_000n,
    });
    expect(row!.granted).toBe(2);
    expect(summarizeStandbyUsage(events)[0]!.granted).toBe(4);
  });

  it('reads eventReceived_str when eventReceived is not a bigint (events parsed from JSON)', () => {
    const parsed = JSON.parse(
      JSON.stringify({ ...grant('ann', 'L1', 'Pro', T0), eventReceived: undefined }),
    ) as StandbyUsageEvent;
    parsed.eventReceived_str = `${T0}000000000`;
    expect(summarizeStandbyUsage([parsed], { from: new Date(T0 * 1000) })).toHaveLength(1);
  });

  it('refuses a bound that is neither a Date nor a bigint', () => {
    expect(() => summarizeStandbyUsage([], { from: '2031' as never })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it('does not depend on the order of the events', () => {
    const consumer = fc.constantFrom('ann', 'bo', 'service-key-0123456789abcdef');
    const event = fc.oneof(
      fc
        .record({
          c: consumer,
          l: fc.integer({ min: 1, max: 6 }),
          t: fc.integer({ min: 0, max: 40 }),
        })
        .map(({ c, l, t }) => grant(c, `L${l}`, l % 2 ? 'Pro' : 'Basic', T0 + t * 600)),
      fc
        .record({
          c: consumer,
          l: fc.integer({ min: 1, max: 6 }),
          t: fc.integer({ min: 0, max: 40 }),
        })
        .map(({ c, l, t }) => renew(c, `L${l}`, l % 2 ? 'Pro' : 'Basic', T0 + t * 600)),
      fc
        .record({
          c: consumer,
          l: fc.integer({ min: 1, max: 8 }),
          t: fc.integer({ min: 0, max: 40 }),
        })
        .map(({ c, l, t }) => release(c, `L${l}`, T0 + t * 600)),
    );
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 5, maxLength: 60 }),
        fc.integer(),
        (events, seed) => {
          const shuffled = [...events];
          let state = seed;
          for (let i = shuffled.length - 1; i > 0; i--) {
            state = (state * 1103515245 + 12345) & 0x7fffffff;
            const j = state % (i + 1);
            [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
          }
          const rows = summarizeStandbyUsage(events);
          expect(summarizeStandbyUsage(shuffled)).toEqual(rows);
          const total = (pick: (r: (typeof rows)[number]) => number) =>
            rows.reduce((sum, r) => sum + pick(r), 0);
          const count = (type: string) => events.filter((e) => e.eventType === type).length;
          expect(total((r) => r.granted)).toBe(count('StandbyLeaseGranted'));
          expect(total((r) => r.renewed)).toBe(count('StandbyLeaseRenewed'));
          expect(total((r) => r.released)).toBe(count('StandbyLeaseReleased'));
        },
      ),
      // 1391022944 found lease hours summed in event order (17.666666666666668 vs ...664).
      { numRuns: 300 },
    );
  });
});
