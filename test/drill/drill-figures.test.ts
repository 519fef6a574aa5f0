import { describe, expect, it } from 'vitest';
import { computeDrillFigures, type PhaseMarks, phaseAt, shareTimes } from './drill-figures.js';
import {
  createFleetRecorder,
  FLAG,
  NETWORK_OUTCOMES,
  type RequestRecord,
} from './fleet-records.js';

const marks: PhaseMarks = {
  rampEndMs: 10_000,
  breakMs: 20_000,
  enableMs: 25_000,
  recoverMs: 40_000,
  disableMs: 50_000,
  endMs: 60_000,
};

describe('shareTimes', () => {
  it('is the order statistic of ceil(q x population), absent while too few reached', () => {
    expect(shareTimes([10, 30, 20], 4)).toEqual({ population: 4, reached: 3, p50Ms: 20 });
    expect(shareTimes([5, 1, 3, 2], 4)).toEqual({
      population: 4,
      reached: 4,
      p50Ms: 2,
      p99Ms: 5,
      p100Ms: 5,
    });
    // 99 % of 200 is the 198th.
    const times = Array.from({ length: 200 }, (_, i) => i);
    expect(shareTimes(times, 200)).toMatchObject({ p50Ms: 99, p99Ms: 197, p100Ms: 199 });
    expect(shareTimes([], 0)).toEqual({ population: 0, reached: 0 });
  });
});

describe('phaseAt', () => {
  it('names the phase a time falls in, boundaries belonging to the later phase', () => {
    expect(
      [0, 10_000, 19_999, 20_000, 25_000, 40_000, 50_000, 70_000].map((t) => phaseAt(marks, t)),
    ).toEqual(['ramp', 'steady', 'steady', 'detect', 'standby', 'recovery', 'tail', 'tail']);
  });
});

/** A four-app run: three reach the standby, two of them come back; app 3 restarts. */
function scenario() {
  const r = createFleetRecorder();
  const request = (
    t: number,
    service: RequestRecord['service'],
    more: Partial<RequestRecord> = {},
  ) => r.request({ t, dur: 1, app: 0, service, route: 'authz', outcome: 200, flags: 0, ...more });
  for (let app = 0; app < 4; app++) r.lease(1000 + app * 1000, app, 'main');
  for (let i = 0; i < 20; i++) request(10_000 + i * 500, 'main'); // steady: 2/s
  request(21_000, 'main', { outcome: NETWORK_OUTCOMES.refused });
  request(22_000, 'main', { outcome: NETWORK_OUTCOMES.refused });
  // Standby enabled at 25 s: apps 0, 1, 2 move over.
  r.event(26_000, 0, 'failover');
  r.lease(26_000, 0, 'standby');
  r.event(27_000, 1, 'failover');
  r.lease(27_000, 1, 'standby');
  r.lease(30_000, 2, 'standby');
  for (const t of [26_500, 26_600, 26_700]) request(t, 'standby');
  // Probes while sticky, and one main authz request of a sticky client (B should send none).
  request(30_000, 'main', {
    route: 'jwks',
    flags: FLAG.onStandby | FLAG.probe,
    outcome: NETWORK_OUTCOMES.refused,
  });
  request(33_000, 'main', {
    route: 'jwks',
    flags: FLAG.onStandby | FLAG.probe,
    outcome: NETWORK_OUTCOMES.refused,
  });
  request(35_000, 'main', {
    route: 'authz',
    flags: FLAG.onStandby,
    outcome: NETWORK_OUTCOMES.refused,
  });
  // App 3 restarts at 28 s and gets its lease from the standby at 31 s.
  r.event(28_000, 3, 'restart');
  r.lease(28_000, 3, 'none');
  r.lease(31_000, 3, 'standby');
  // Calls while main is broken: breaker open (0 main attempts), on the standby (2).
  const call = (t: number, flags: number, mainRequests: number, code?: string) =>
    r.call({
      t,
      dur: 10,
      app: 0,
      kind: 'renew',
      servedBy: code ? 'none' : 'standby',
      code,
      mainRequests,
      flags,
    });
  call(22_000, 0, 2, 'STANDBY_DORMANT');
  call(29_000, FLAG.onStandby | FLAG.breakerOpen, 0);
  call(31_000, FLAG.onStandby | FLAG.breakerOpen, 1);
  call(32_000, FLAG.onStandby, 2);
  call(12_000, 0, 1);
  // Main recovers at 40 s: five requests in the second from 41 s, apps 0 and 1 back on main.
  for (let i = 0; i < 5; i++) request(41_000 + i * 100, 'main');
  r.event(41_000, 0, 'failback', 'main-recovered');
  r.lease(41_100, 0, 'main');
  r.lease(45_000, 1, 'main');
  // App 2 is refused its valid lease once.
  r.event(46_000, 2, 'lapse', 'TOKEN_INVALID');
  r.lease(46_000, 2, 'none');
  return r.records;
}

describe('computeDrillFigures', () => {
  const figures = computeDrillFigures({
    records: scenario(),
    marks,
    clients: 4,
    probeIntervalMs: 9_000,
  });

  it('times the move to the standby from its enabling and from the break', () => {
    expect(figures.toStandby.fromEnable).toEqual({
      population: 4,
      reached: 4,
      p50Ms: 2000,
      p99Ms: 6000,
      p100Ms: 6000,
    });
    expect(figures.toStandby.fromBreak.p50Ms).toBe(7000);
  });

  it('counts a standby lease granted while the enable action was still being answered', () => {
    // The orchestrator saw the enable answered at 25 s; the standby served app 0 at 24.9 s.
    const r = createFleetRecorder();
    r.lease(1_000, 0, 'main');
    r.lease(24_900, 0, 'standby');
    const early = (enableStartMs?: number) =>
      computeDrillFigures({
        records: r.records,
        marks: { ...marks, ...(enableStartMs === undefined ? {} : { enableStartMs }) },
        clients: 1,
        probeIntervalMs: 9_000,
      }).toStandby.fromEnable;
    expect(early(24_800)).toEqual({
      population: 1,
      reached: 1,
      p50Ms: 100,
      p99Ms: 100,
      p100Ms: 100,
    });
    // Results written before the start was recorded count from the completion, as they did.
    expect(early(undefined)).toEqual({ population: 1, reached: 0 });
  });

  it('times the failback of the apps on the standby at recovery', () => {
    expect(figures.failback.holdingMain).toEqual({ population: 4, reached: 2, p50Ms: 5000 });
    // Only apps 0 and 1 failed over (their clients were on the standby); app 0's failback came 1 s in.
    expect(figures.failback.sdkFailbackEvent).toEqual({ population: 2, reached: 1, p50Ms: 1000 });
  });

  it('counts lapses, apps without a lease at the end, and restarts', () => {
    expect(figures.leases.lapsedApps).toBe(1);
    expect(figures.leases.lapsesByCode).toEqual({ TOKEN_INVALID: 1 });
    expect(figures.leases.withoutLeaseAtEnd).toBe(1);
    expect(figures.leases.restarts).toEqual({
      population: 1,
      reached: 1,
      p50Ms: 3000,
      p99Ms: 3000,
      p100Ms: 3000,
    });
  });

  it('rates main: steady state, outage per client per minute, recovery peak against steady', () => {
    expect(figures.main.steadyRps).toBe(2);
    expect(figures.main.steadyPeakRps).toBe(2);
    expect(figures.main.recoveryPeakRps).toBe(5);
    expect(figures.main.recoveryPeakAtMs).toBe(1000);
    expect(figures.main.recoveryPeakRatio).toBe(2.5);
    // 2 requests in the 5 s dormant half, 3 in the 15 s enabled half, over 4 clients.
    expect(figures.main.outagePerClientPerMinute.standbyDormant).toBeCloseTo(2 / 4 / (5 / 60));
    expect(figures.main.outagePerClientPerMinute.standbyEnabled).toBeCloseTo(3 / 4 / (15 / 60));
    expect(figures.main.outagePerClientPerMinute.whole).toBeCloseTo(5 / 4 / (20 / 60));
  });

  it('rates main attempts of sticky clients per probe interval, and per call with the breaker open', () => {
    // App 0 sticky 26-40 s (14 s), app 1 27-40 s (13 s): 27 s = 3 probe intervals of 9 s.
    expect(figures.main.whileOnStandby).toMatchObject({
      mainRequests: 3,
      probes: 2,
      authz: 1,
      stickyClientMs: 27_000,
      per: 3,
      ratio: 1,
    });
    expect(figures.main.perCallBreakerOpen).toEqual({ mainRequests: 1, per: 2, ratio: 0.5 });
    expect(figures.main.perCallOnStandby).toEqual({ mainRequests: 3, per: 3, ratio: 1 });
  });

  it('counts the standby, errors by phase and code, and request outcomes', () => {
    expect(figures.standby).toEqual({ requests: 3, peakRps: 3, peakAtMs: 26_000 });
    expect(figures.calls.errorsByPhase).toEqual({ detect: { STANDBY_DORMANT: 1 } });
    expect(figures.calls.failed).toBe(1);
    expect(figures.calls.durationByPhase.standby).toEqual({ calls: 3, p50Ms: 10, p99Ms: 10 });
    expect(figures.requestOutcomes.main).toEqual({ 200: 25, refused: 5 });
  });

  it('draws one-second series of requests and lease holders', () => {
    const { series } = figures;
    expect(series.mainRps).toHaveLength(60);
    expect(series.mainRps[41]).toBe(5);
    expect(series.standbyRps[26]).toBe(3);
    expect(series.onMain[5]).toBe(4);
    expect([series.onMain[32], series.onStandby[32], series.withoutLease[32]]).toEqual([0, 4, 0]);
    expect([series.onMain[59], series.onStandby[59], series.withoutLease[59]]).toEqual([2, 1, 1]);
  });
});

describe('computeDrillFigures at phase boundaries', () => {
  it('leaves a second that straddles a boundary out of both phases’ peaks', () => {
    const r = createFleetRecorder();
    const main = (t: number) =>
      r.request({ t, dur: 1, app: 0, service: 'main', route: 'authz', outcome: 200, flags: 0 });
    for (let t = 10_000; t < 20_000; t += 500) main(t); // 2/s
    for (let i = 0; i < 9; i++) main(20_100 + i); // the second of the break, after it
    for (let i = 0; i < 3; i++) main(40_600 + i); // the second of the recovery
    for (let i = 0; i < 4; i++) main(41_100 + i);
    const f = computeDrillFigures({
      records: r.records,
      marks: { ...marks, breakMs: 20_050, recoverMs: 40_500 },
      clients: 1,
      probeIntervalMs: 1000,
    });
    expect(f.main.steadyPeakRps).toBe(2);
    expect(f.main.recoveryPeakRps).toBe(4);
    expect(f.main.recoveryPeakAtMs).toBe(500);
  });
});
