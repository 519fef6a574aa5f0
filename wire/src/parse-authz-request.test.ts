import { describe, expect, it } from 'vitest';
import { InvalidAuthzRequest, parseAuthzRequest } from './parse-authz-request.js';
import { LEASE_CLAIM_NAMES, RESERVED_PARAMETERS } from './wire-names.js';

const items = (n: number, prefix = 'Item') =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`).join('&');

/** The description a refused request is answered with. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof InvalidAuthzRequest) return err.message;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('parseAuthzRequest', () => {
  it('reads items, per-item attributes and the echoed details, from query then body', () => {
    expect(
      parseAuthzRequest(
        'ItemA&ItemB=;licenseId=L1;leaseId=J1&hw=H1;name=Desk&version=2',
        'process=p&consumptionMode=cache&doConsume=1&Item%20C',
      ),
    ).toEqual({
      items: [
        { name: 'ItemA' },
        { name: 'ItemB', licenseId: 'L1', leaseId: 'J1' },
        { name: 'Item C' },
      ],
      release: undefined,
      echo: { hw: 'H1', hwName: 'Desk', version: '2', process: 'p', consumptionMode: 'cache' },
    });
  });

  it('applies the request-wide licenseId and leaseId to items without their own', () => {
    expect(parseAuthzRequest('ItemA&licenseId=L9').items).toEqual([
      { name: 'ItemA', licenseId: 'L9' },
    ]);
    expect(parseAuthzRequest('ItemA&leaseId=J9').items).toEqual([{ name: 'ItemA', leaseId: 'J9' }]);
    expect(refusal(() => parseAuthzRequest('ItemA&ItemB&leaseId=J9'))).toMatch(/one item/);
  });

  it('reads a release: the names and leaseId are lease ids', () => {
    expect(parseAuthzRequest('release&J1&J2&leaseId=J3')).toEqual({
      items: [],
      release: ['J1', 'J2', 'J3'],
      echo: {},
    });
    expect(parseAuthzRequest('release=false&ItemA').release).toBeUndefined();
    expect(refusal(() => parseAuthzRequest('release'))).toBe('A release names no lease id');
  });

  it('refuses a request naming nothing, an empty name, bad encoding and an unknown mode', () => {
    expect(refusal(() => parseAuthzRequest('hw=H1'))).toBe('The request names no licensed item');
    expect(refusal(() => parseAuthzRequest('=x&ItemA'))).toBe('A parameter has an empty name');
    expect(refusal(() => parseAuthzRequest('Item%zz'))).toMatch(/percent-encoding/);
    expect(refusal(() => parseAuthzRequest('ItemA&consumptionMode=x'))).toMatch(
      /cache or checkout/,
    );
  });

  it('takes up to 100 items by default and refuses 101', () => {
    expect(parseAuthzRequest(items(100)).items).toHaveLength(100);
    expect(refusal(() => parseAuthzRequest(items(101)))).toBe(
      'More than 100 items or lease ids in one request',
    );
  });

  it('counts query and form body together, and released lease ids too', () => {
    expect(() => parseAuthzRequest(items(60, 'A'), items(41, 'B'))).toThrow(InvalidAuthzRequest);
    expect(parseAuthzRequest(`release&${items(100, 'L')}`).release).toHaveLength(100);
    expect(() => parseAuthzRequest(`release&${items(100, 'L')}&leaseId=L100`)).toThrow(
      InvalidAuthzRequest,
    );
    expect(() => parseAuthzRequest(`release&${items(101, 'L')}`)).toThrow(InvalidAuthzRequest);
  });

  it('honours a configured cap, and stops early on a huge request', () => {
    expect(parseAuthzRequest(items(3), undefined, { maxItems: 3 }).items).toHaveLength(3);
    expect(() => parseAuthzRequest(items(4), undefined, { maxItems: 3 })).toThrow(/More than 3/);
    // 100 000 items (a 690 KB request) are refused at the 101st.
    expect(() => parseAuthzRequest('', items(100_000))).toThrow(/More than 100/);
  });

  // hw, process, version and consumptionMode are parameters: they never name an item.
  const claimOnly = LEASE_CLAIM_NAMES.filter((name) => !RESERVED_PARAMETERS.includes(name));

  it.each(claimOnly)('refuses an item or lease id named %s', (claim) => {
    const encoded = encodeURIComponent(claim);
    for (const query of [encoded, `ItemA&${encoded}=`, `release&${encoded}`]) {
      expect(refusal(() => parseAuthzRequest(query))).toMatch(/is a token claim/);
    }
  });

  it('keeps reserved parameters working: they are parameters, not items', () => {
    const parsed = parseAuthzRequest(
      'ItemA&hw=H1;name=Desk&version=2&process=p&consumptionMode=cache',
    );
    expect(parsed.items).toEqual([{ name: 'ItemA' }]);
    expect(parsed.echo).toEqual({
      hw: 'H1',
      hwName: 'Desk',
      version: '2',
      process: 'p',
      consumptionMode: 'cache',
    });
    expect(refusal(() => parseAuthzRequest('release&leaseId=exp'))).toBe(
      'exp is a token claim and cannot name a lease',
    );
  });
});
