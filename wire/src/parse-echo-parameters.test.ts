import { describe, expect, it } from 'vitest';
import { parseEchoParameters, splitAttributes } from './parse-echo-parameters.js';

describe('parseEchoParameters', () => {
  it('reads hw with its name, process and version from a parsed query', () => {
    expect(parseEchoParameters({ hw: 'H1;name=Desk', process: 'p', version: '2', x: 'y' })).toEqual(
      { hw: 'H1', hwName: 'Desk', process: 'p', version: '2' },
    );
  });

  it('reads URLSearchParams the same way, taking the first of repeated names', () => {
    const query = new URLSearchParams('hw=H1;name=Desk&hw=H2&version=2&version=3');
    expect(parseEchoParameters(query)).toEqual({ hw: 'H1', hwName: 'Desk', version: '2' });
  });

  it('keeps a label without an id, and nothing for an absent parameter', () => {
    expect(parseEchoParameters({ hw: ';name=Desk' })).toEqual({ hwName: 'Desk' });
    expect(parseEchoParameters({})).toEqual({});
    expect(parseEchoParameters(new URLSearchParams(''))).toEqual({});
  });
});

describe('splitAttributes', () => {
  it('splits the main part from trimmed k=v attributes, skipping parts without a name', () => {
    const [main, attributes] = splitAttributes('A; licenseId = L1 ;=x;flag;leaseId=J=1');
    expect(main).toBe('A');
    expect(Object.fromEntries(attributes)).toEqual({ licenseId: 'L1', leaseId: 'J=1' });
  });
});
