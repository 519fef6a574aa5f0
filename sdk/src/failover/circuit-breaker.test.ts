import { describe, expect, it } from 'vitest';
import { type CircuitOpenInfo, createCircuitBreaker } from './circuit-breaker.js';

function setup(random = () => 0.5) {
  let time = 0;
  const opened: CircuitOpenInfo[] = [];
  let closed = 0;
  const breaker = createCircuitBreaker({
    options: { failureThreshold: 2, halfOpenAfterMs: 1_000, halfOpenMaxMs: 4_000 },
    now: () => time,
    random,
    onOpen: (info) => opened.push(info),
    onClose: () => {
      closed += 1;
    },
  });
  return {
    breaker,
    opened,
    closes: () => closed,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('createCircuitBreaker', () => {
  it('opens after failureThreshold consecutive failed calls, and a success resets the count', () => {
    const { breaker, opened } = setup();
    breaker.failed();
    breaker.succeeded();
    breaker.failed();
    expect(breaker.state).toBe('closed');
    expect(breaker.admit()).toBe('pass');
    breaker.failed();
    expect(breaker.state).toBe('open');
    expect(opened).toEqual([{ failures: 2, retryInMs: 1_000 }]);
    expect(breaker.admit()).toBe('skip');
  });

  it('lets exactly one trial through after the wait; the others skip main meanwhile', () => {
    const { breaker, advance } = setup();
    breaker.failed();
    breaker.failed();
    advance(999);
    expect(breaker.admit()).toBe('skip');
    advance(1);
    expect(breaker.admit()).toBe('trial');
    expect(breaker.state).toBe('half-open');
    expect([breaker.admit(), breaker.admit()]).toEqual(['skip', 'skip']);
  });

  it('closes on a successful trial and reports it once', () => {
    const { breaker, advance, closes } = setup();
    breaker.failed();
    breaker.failed();
    breaker.admit();
    advance(1_000);
    breaker.admit();
    breaker.succeeded();
    expect(breaker.state).toBe('closed');
    expect(closes()).toBe(1);
    breaker.succeeded();
    expect(closes()).toBe(1);
  });

  it('doubles the wait after each failed trial, up to halfOpenMaxMs', () => {
    const { breaker, advance, opened } = setup();
    breaker.failed();
    breaker.failed();
    for (let trial = 0; trial < 4; trial++) {
      expect(breaker.admit()).toBe('skip'); // a call served by the standby meanwhile
      advance(opened.at(-1)!.retryInMs);
      expect(breaker.admit()).toBe('trial');
      breaker.failed();
    }
    expect(opened.map((o) => o.retryInMs)).toEqual([1_000, 2_000, 4_000, 4_000, 4_000]);
  });

  it('tries main on at most every other call, however rarely the app calls', () => {
    const { breaker, advance } = setup();
    breaker.failed();
    breaker.failed();
    // One call an hour: every wait has long passed, yet trials alternate with skipped calls.
    const admissions: string[] = [];
    for (let call = 0; call < 8; call++) {
      advance(3_600_000);
      const admission = breaker.admit();
      admissions.push(admission);
      if (admission === 'trial') breaker.failed();
    }
    expect(admissions).toEqual([
      'skip',
      'trial',
      'skip',
      'trial',
      'skip',
      'trial',
      'skip',
      'trial',
    ]);
  });

  it('jitters the wait ±50 % with the injected random source', () => {
    const early = setup(() => 0);
    early.breaker.failed();
    early.breaker.failed();
    const late = setup(() => 0.999);
    late.breaker.failed();
    late.breaker.failed();
    expect([early.opened[0]!.retryInMs, late.opened[0]!.retryInMs]).toEqual([500, 1_499]);
  });

  it('an abandoned trial lets the next call try at once', () => {
    const { breaker, advance } = setup();
    breaker.failed();
    breaker.failed();
    breaker.admit();
    advance(1_000);
    expect(breaker.admit()).toBe('trial');
    breaker.abandoned();
    expect(breaker.state).toBe('open');
    expect(breaker.admit()).toBe('trial');
  });
});
