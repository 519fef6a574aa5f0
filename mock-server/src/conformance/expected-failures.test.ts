import { describe, expect, it } from 'vitest';
import { parseExpectedFailures } from './expected-failures.js';

const known = new Set(['standby.auth.id-token-grace', 'events.paging.count-caps']);

describe('parseExpectedFailures', () => {
  it('reads one id a line, ignoring comments, blank lines and surrounding spaces', () => {
    const text =
      '# pinned until ticket 12 is fixed\n\n  standby.auth.id-token-grace  # 23 h only\r\nevents.paging.count-caps\n';
    expect([...parseExpectedFailures(text, known)]).toEqual([
      'standby.auth.id-token-grace',
      'events.paging.count-caps',
    ]);
  });

  it('refuses an id that names no check, with its line', () => {
    expect(() => parseExpectedFailures('# x\nstandby.auth.typo\n', known)).toThrow(
      /line 2: "standby.auth.typo" is not a check id/,
    );
  });

  it('is empty for an empty file', () => {
    expect(parseExpectedFailures('', known).size).toBe(0);
  });
});
