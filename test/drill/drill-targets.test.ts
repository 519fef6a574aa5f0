import { describe, expect, it } from 'vitest';
import { computeDrillFigures, type DrillFigures } from './drill-figures.js';
import { checkTargets } from './drill-targets.js';
import { emptyFleetRecords } from './fleet-records.js';

function figures(change: (f: DrillFigures) => void): DrillFigures {
  const f = computeDrillFigures({
    records: emptyFleetRecords(),
    marks: { rampEndMs: 1, breakMs: 2, enableMs: 3, recoverMs: 4, disableMs: 5, endMs: 6 },
    clients: 0,
    probeIntervalMs: 30_000,
  });
  change(f);
  return f;
}

const good = figures((f) => {
  f.main.whileOnStandby.ratio = 0.8;
  f.main.perCallBreakerOpen.ratio = 0.25;
  f.main.perCallOnStandby.ratio = 2;
  f.main.recoveryPeakRatio = 1.9;
  f.toStandby.fromEnable.p99Ms = 69_000;
});

const context = { attemptTimeoutMs: 5_000, probeIntervalMs: 30_000 };

describe('checkTargets', () => {
  it('judges Strategy B on the sticky main attempts', () => {
    const checks = checkTargets(good, { ...context, strategy: 'B', breaker: false });
    expect(checks.map((c) => [c.name, c.value, c.met])).toEqual([
      ['apps that lost a valid lease', 0, true],
      ['apps without a lease at the end', 0, true],
      ['main attempts per client per probe interval on the standby', 0.8, true],
      ["main's recovery peak over its steady rate", 1.9, true],
      ['99 % on a standby lease, s after enabling', 69, true],
    ]);
    expect(checks[4]!.note).toContain('70 s');
  });

  it('judges Strategy A per call with the breaker open, or on the standby without one', () => {
    const withBreaker = checkTargets(good, { ...context, strategy: 'A', breaker: true });
    expect(withBreaker[2]).toMatchObject({ value: 0.25, met: true, target: '<= 0.5' });
    const without = checkTargets(good, { ...context, strategy: 'A', breaker: false });
    expect(without[2]).toMatchObject({ value: 2, met: false });
  });

  it('fails a target whose figure is over its bound or missing', () => {
    const bad = figures((f) => {
      f.leases.lapsedApps = 1;
      f.main.recoveryPeakRatio = 2.01;
      f.toStandby.fromEnable = { population: 10, reached: 5 };
    });
    const checks = checkTargets(bad, { ...context, strategy: 'B', breaker: false });
    expect(checks.map((c) => c.met)).toEqual([false, true, false, false, false]);
    expect(checks[2]!.value).toBeUndefined();
    expect(checks[4]!.value).toBeUndefined();
  });
});
