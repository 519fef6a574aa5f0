import { describe, expect, it } from 'vitest';
import type { LeaseClaims } from '../types.js';
import { isLease, readDenial, toLease } from './lease.js';

const IAT = 1_900_000_000;
const claims = (extra: Record<string, unknown> = {}): LeaseClaims => ({
  ItemA: true,
  jti: 'J1',
  lic: 'L1',
  iat: IAT,
  exp: IAT + 8 * 3600,
  ...extra,
});

describe('toLease', () => {
  it('builds a lease from verified claims, renewing at rfr', () => {
    const verified = claims({ rfr: IAT + 6 * 3600 });
    expect(toLease('ItemA', 'tok', verified, 'standby', 0)).toEqual({
      item: 'ItemA',
      leaseId: 'J1',
      licenseId: 'L1',
      token: 'tok',
      claims: verified,
      expiresAt: (IAT + 8 * 3600) * 1000,
      refreshAt: (IAT + 6 * 3600) * 1000,
      servedBy: 'standby',
    });
  });

  it('renews at 75 % of the lease without rfr, rounded to the millisecond', () => {
    expect(toLease('ItemA', 'tok', claims(), 'main', 0).refreshAt).toBe((IAT + 6 * 3600) * 1000);
    // 7 s lease: 75 % is 5.25 s after iat.
    const short = claims({ exp: IAT + 7 });
    expect(toLease('ItemA', 'tok', short, 'main', 0).refreshAt).toBe(IAT * 1000 + 5_250);
    // 1 ms lease: 0.75 ms rounds to 1.
    expect(toLease('ItemA', 'tok', claims({ exp: IAT + 0.001 }), 'main', 0).refreshAt).toBe(
      IAT * 1000 + 1,
    );
  });

  it('ignores an rfr that is not a finite number', () => {
    for (const rfr of ['123', Number.NaN, Number.POSITIVE_INFINITY, null]) {
      expect(toLease('ItemA', 'tok', claims({ rfr }), 'main', 0).refreshAt).toBe(
        (IAT + 6 * 3600) * 1000,
      );
    }
  });

  it('puts expiresAt and refreshAt on the local clock: the services time minus the offset', () => {
    const lease = toLease('ItemA', 'tok', claims({ rfr: IAT + 3600 }), 'main', 3_600_000);
    expect(lease.expiresAt).toBe((IAT + 7 * 3600) * 1000);
    expect(lease.refreshAt).toBe(IAT * 1000);
    const behind = toLease('ItemA', 'tok', claims(), 'main', -1_000);
    expect(behind.expiresAt).toBe((IAT + 8 * 3600) * 1000 + 1_000);
    expect(behind.refreshAt).toBe((IAT + 6 * 3600) * 1000 + 1_000);
  });
});

describe('readDenial', () => {
  it('is undefined for a token that grants the item', () => {
    expect(readDenial('ItemA', { ItemA: true, ItemA_errorCode: 'noLicenseFound' })).toBeUndefined();
  });

  it('reads the code and the message of a denial', () => {
    expect(
      readDenial('ItemA', { ItemA_errorCode: 'noLicenseFound', ItemA_errorMessage: 'No license' }),
    ).toEqual({ item: 'ItemA', code: 'noLicenseFound', message: 'No license' });
    expect(readDenial('ItemA', { ItemA_errorCode: 'expired', ItemA_errorMessage: 7 })).toEqual({
      item: 'ItemA',
      code: 'expired',
    });
  });

  it('is undefined without a string error code for that item', () => {
    expect(readDenial('ItemA', { ItemB_errorCode: 'noLicenseFound' })).toBeUndefined();
    expect(readDenial('ItemA', { ItemA_errorCode: 42 })).toBeUndefined();
    expect(readDenial('ItemA', { ItemA: 'true', ItemA_errorMessage: 'x' })).toBeUndefined();
  });
});

describe('isLease', () => {
  // Built in each test, not while the file is collected: a mutation run then knows which tests
  // reach toLease.
  const leaseOf = () => toLease('ItemA', 'tok', claims(), 'main', 0);

  it('accepts what checkout and renew return', () => {
    const lease = leaseOf();
    expect(isLease(lease)).toBe(true);
    expect(isLease({ ...lease, servedBy: 'standby' })).toBe(true);
  });

  it('refuses anything else', () => {
    const lease = leaseOf();
    for (const value of [
      undefined,
      null,
      'lease',
      42,
      { ...lease, item: 7 },
      { ...lease, leaseId: '' },
      { ...lease, leaseId: 7 },
      { ...lease, servedBy: 'backup' },
      { ...lease, servedBy: undefined },
    ]) {
      expect(isLease(value)).toBe(false);
    }
  });
});
