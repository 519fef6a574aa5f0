import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FeedEvent, isEventOfType } from './event-kinds.js';
import {
  compareTimestamps,
  parseTimestamp,
  timestampFromDate,
  timestampToDate,
} from './timestamp.js';

const INT64_MAX = 2n ** 63n - 1n;

describe('timestamps', () => {
  it('parse exactly from digits and round-trip as text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: INT64_MAX }), (ts) => {
        expect(parseTimestamp(ts.toString())).toBe(ts);
      }),
    );
  });

  it('compare numerically, not as text of different widths', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: INT64_MAX }),
        fc.bigInt({ min: 0n, max: INT64_MAX }),
        (a, b) => {
          expect(compareTimestamps(a.toString(), b)).toBe(a < b ? -1 : a > b ? 1 : 0);
        },
      ),
    );
    expect(compareTimestamps('999', '1000')).toBe(-1);
  });

  it('convert from and to Date at millisecond precision', () => {
    const date = new Date('2027-01-15T08:00:00.123Z');
    expect(timestampFromDate(date)).toBe(1_800_000_000_123_000_000n);
    expect(timestampToDate(1_800_000_000_123_999_999n)).toEqual(date);
    expect(timestampToDate('1800000000123000001')).toEqual(date);
  });

  it.each([[-1n], [INT64_MAX + 1n], ['12.5'], ['-3'], [''], ['1e9'], [12], [null]])(
    'refuse %s with INVALID_ARGUMENT',
    (value) => {
      expect(() => parseTimestamp(value)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    },
  );
});

describe('isEventOfType', () => {
  it('narrows known kinds and leaves others as generic events', () => {
    const event = {
      eventType: 'LicenseRevoked',
      eventSourceId: 'licensing',
      eventId: 'e1',
      eventReceived: 1n,
      eventReceived_str: '1',
      data: { licensedItemName: 'ItemA' },
    } as FeedEvent;
    expect(isEventOfType(event, 'LicenseRevoked')).toBe(true);
    if (isEventOfType(event, 'LicenseRevoked')) {
      const name: string | undefined = event.data?.licensedItemName;
      expect(name).toBe('ItemA');
    }
    expect(isEventOfType(event, 'Deleted')).toBe(false);
    expect(isEventOfType({ eventType: 'MyOwnKind' }, 'LicenseProvisioned')).toBe(false);
  });
});
