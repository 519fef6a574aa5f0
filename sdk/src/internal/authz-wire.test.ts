import { describe, expect, it } from 'vitest';
import {
  buildCheckoutQuery,
  buildReleaseQuery,
  buildRenewQuery,
  splitTokens,
} from './authz-wire.js';

describe('authz wire format', () => {
  it('sends items as bare parameters, then hw and version', () => {
    expect(
      buildCheckoutQuery([{ item: 'ItemA' }, { item: 'ItemB', licenseId: 'L1' }], {
        hardwareId: 'hw 1',
        version: '2.0',
      }),
    ).toBe('ItemA&ItemB=;licenseId=L1&hw=hw%201&version=2.0');
    expect(buildCheckoutQuery([{ item: 'A' }], { hardwareId: 'H', hardwareName: 'Desk' })).toBe(
      'A&hw=H;name=Desk',
    );
  });

  it('renews with <item>=;leaseId=<id> and releases with release&<ids>', () => {
    expect(buildRenewQuery('ItemA', 'J1', {})).toBe('ItemA=;leaseId=J1');
    expect(buildReleaseQuery(['J1', 'J2'])).toBe('release&J1&J2');
  });

  it('splits tokens and refuses anything that is not a JWT', () => {
    expect(splitTokens('a.b.c&d.e.f')).toEqual(['a.b.c', 'd.e.f']);
    expect(splitTokens('<html></html>')).toBeUndefined();
  });
});
