import { describe, expect, it } from 'vitest';
import { DRILL_DEFAULTS, type DrillOptions } from './drill-options.js';
import { planDrill, scheduleApp } from './drill-schedule.js';

const options = (over: Partial<DrillOptions> = {}): DrillOptions => ({
  ...DRILL_DEFAULTS,
  clients: 200,
  restarts: 20,
  phases: { rampS: 10, steadyS: 20, detectS: 5, standbyS: 30, recoveryS: 40, tailS: 5 },
  ...over,
});

describe('planDrill', () => {
  it('puts the phases back to back', () => {
    const plan = planDrill(options());
    expect(plan).toMatchObject({
      rampEndMs: 10_000,
      breakMs: 30_000,
      enableMs: 35_000,
      recoverMs: 65_000,
      disableMs: 105_000,
      endMs: 110_000,
    });
  });

  it('restarts distinct apps while main is broken, in time order, reproducibly', () => {
    const plan = planDrill(options());
    expect(plan.restarts).toHaveLength(20);
    expect(new Set(plan.restarts.map((r) => r.app)).size).toBe(20);
    for (const { app, atMs } of plan.restarts) {
      expect(app).toBeGreaterThanOrEqual(0);
      expect(app).toBeLessThan(200);
      expect(atMs).toBeGreaterThanOrEqual(plan.breakMs);
      expect(atMs).toBeLessThan(plan.recoverMs);
    }
    const times = plan.restarts.map((r) => r.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(planDrill(options()).restarts).toEqual(plan.restarts);
    expect(planDrill(options({ seed: 2 })).restarts).not.toEqual(plan.restarts);
  });

  it('restarts every app at most once', () => {
    expect(planDrill(options({ clients: 3, restarts: 10 })).restarts).toHaveLength(3);
  });
});

describe('scheduleApp', () => {
  it('starts each app inside its own slot of the ramp, with a phase inside the call interval', () => {
    const o = options();
    const starts = Array.from({ length: o.clients }, (_, app) => scheduleApp(o, app));
    starts.forEach(({ startMs, phaseMs }, app) => {
      expect(startMs).toBeGreaterThanOrEqual(app * 50);
      expect(startMs).toBeLessThan((app + 1) * 50);
      expect(phaseMs).toBeGreaterThanOrEqual(0);
      expect(phaseMs).toBeLessThan(o.callIntervalS * 1000);
    });
    // Phases are spread, not bunched: every fifth of the interval holds some apps.
    const fifths = new Set(starts.map((s) => Math.floor((s.phaseMs / 30_000) * 5)));
    expect(fifths.size).toBe(5);
    expect(scheduleApp(o, 7)).toEqual(starts[7]);
  });
});
