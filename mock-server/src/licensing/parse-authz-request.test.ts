import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { CLAIM_NAMES, parseAuthzRequest, RESERVED_PARAMETERS } from './parse-authz-request.js';

const items = (n: number, prefix = 'Item') =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`).join('&');

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('parseAuthzRequest limits', () => {
  it('takes up to 100 items by default and refuses 101', () => {
    expect(parseAuthzRequest(items(100)).items).toHaveLength(100);
    const refused = refusal(() => parseAuthzRequest(items(101)));
    expect(refused).toMatchObject({ statusCode: 400, error: 'invalid_request' });
  });

  it('counts query and form body together, and released lease ids too', () => {
    expect(() => parseAuthzRequest(items(60, 'A'), items(41, 'B'))).toThrow(ApiError);
    expect(parseAuthzRequest(`release&${items(100, 'L')}`).release).toHaveLength(100);
    expect(() => parseAuthzRequest(`release&${items(100, 'L')}&leaseId=L100`)).toThrow(ApiError);
    expect(() => parseAuthzRequest(`release&${items(101, 'L')}`)).toThrow(ApiError);
  });

  it('honours a configured cap, and stops early on a huge request', () => {
    expect(parseAuthzRequest(items(3), undefined, { maxItems: 3 }).items).toHaveLength(3);
    expect(() => parseAuthzRequest(items(4), undefined, { maxItems: 3 })).toThrow(ApiError);
    // 100 000 items (the 690 KB request of the issue) are refused without issuing anything.
    expect(() => parseAuthzRequest('', items(100_000))).toThrow(/More than 100/);
  });

  // hw, process, version and consumptionMode are parameters: they never name an item.
  const claimOnly = [...CLAIM_NAMES].filter((name) => !RESERVED_PARAMETERS.has(name));

  it.each(claimOnly)('refuses an item or lease id named %s', (claim) => {
    const encoded = encodeURIComponent(claim);
    expect(refusal(() => parseAuthzRequest(`${encoded}`))).toMatchObject({
      error: 'invalid_request',
    });
    expect(refusal(() => parseAuthzRequest(`ItemA&${encoded}=`))).toMatchObject({
      error: 'invalid_request',
    });
    expect(refusal(() => parseAuthzRequest(`release&${encoded}`))).toMatchObject({
      error: 'invalid_request',
    });
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
    expect(() => parseAuthzRequest('release&leaseId=exp')).toThrow(ApiError);
  });
});
