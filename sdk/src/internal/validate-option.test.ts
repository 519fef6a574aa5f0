import { describe, expect, it } from 'vitest';
import { InvalidOptionError, isLicensingError } from '../errors.js';
import { argument, closest, option } from './validate-option.js';

function thrown(run: () => unknown): InvalidOptionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError);
    return error as InvalidOptionError;
  }
  throw new Error('expected a throw');
}

describe('closest', () => {
  const known = ['hardwareId', 'hardwareName', 'mainUrl', 'standbyUrl', 'trust'];

  it('finds a name that differs by case, or by at most two edits', () => {
    expect(closest('hardwareld', known)).toBe('hardwareId');
    expect(closest('HARDWAREID', known)).toBe('hardwareId');
    expect(closest('mainURL', known)).toBe('mainUrl');
    expect(closest('tursT', known)).toBe('trust');
    expect(closest('standbyUlr', known)).toBe('standbyUrl');
  });

  it('suggests nothing when nothing is close, or two names are as close', () => {
    expect(closest('timeout', known)).toBeUndefined();
    expect(closest('hardwareQQQ', known)).toBeUndefined();
    expect(closest('ab', ['ac', 'ad'])).toBeUndefined();
  });
});

describe('option validators', () => {
  it('name the closest known option of an unknown one, and say to fix it', () => {
    const error = thrown(() =>
      option.knownKeys('', { hardwareld: 'x' }, ['hardwareId', 'version']),
    );
    expect(error.option).toBe('hardwareld');
    expect(error.message).toBe(
      'Unknown option `hardwareld`. Did you mean `hardwareId`? Fix its name, or remove it.',
    );
    const nested = thrown(() => option.knownKeys('failover', { strategie: 'A' }, ['strategy']));
    expect(nested.message).toContain('Did you mean `failover.strategy`?');
  });

  it('list the known ones when none is close', () => {
    expect(thrown(() => option.knownKeys('names', { zzz: 1 }, ['a', 'b'])).message).toBe(
      'Unknown option `names.zzz`. Remove it; the known ones are `a`, `b`.',
    );
  });

  it('throw LicensingErrors with code INVALID_ARGUMENT whose message ends with what to do', () => {
    const error = thrown(() => option.number('failover.mainAttempts', 0, 2, { min: 1 }));
    expect(isLicensingError(error)).toBe(true);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(
      'Expected `failover.mainAttempts` to be a finite number >= 1, got 0. Fix the `failover.mainAttempts` option.',
    );
    // A message that ends with its own instruction keeps it.
    expect(thrown(() => option.fail('x', 'Set it right.')).message).toBe('Set it right.');
  });

  it('argument validators keep their own form', () => {
    expect(() => argument.requireFn('listener', 1)).toThrow(
      'Expected `listener` to be a function. Fix the `listener` argument.',
    );
  });
});
