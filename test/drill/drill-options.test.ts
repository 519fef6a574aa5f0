import { describe, expect, it } from 'vitest';
import { DRILL_DEFAULTS, type DrillOptions, parseDrillArgs, QUICK_DRILL } from './drill-options.js';

/** The failover options parsed from `argv` (never `--help` here). */
const failoverOf = (argv: string[]) => (parseDrillArgs(argv) as DrillOptions).failover;

describe('parseDrillArgs', () => {
  it('gives the full run by default, restarts 1 % of the clients', () => {
    expect(parseDrillArgs([])).toEqual({ ...DRILL_DEFAULTS, restarts: 100 });
    expect(parseDrillArgs(['--help'])).toBe('help');
  });

  it('reads every flag, durations in seconds and SDK options in ms', () => {
    const options = parseDrillArgs([
      '--clients',
      '300',
      '--strategy',
      'A',
      '--outage',
      'hang',
      '--workers',
      '0',
      '--connections',
      '16',
      '--seed',
      '7',
      '--out',
      'tmp/drill',
      '--name',
      'a-hang',
      '--call-interval',
      '2.5',
      '--restarts',
      '5',
      '--ramp',
      '3',
      '--steady',
      '4',
      '--detect',
      '5',
      '--standby',
      '6',
      '--recovery',
      '7',
      '--tail',
      '8',
      '--main-attempts',
      '3',
      '--attempt-timeout-ms',
      '800',
      '--probe-interval-ms',
      '900',
      '--breaker',
      'on',
      '--breaker-threshold',
      '3',
      '--breaker-half-open-ms',
      '1000',
      '--breaker-half-open-max-ms',
      '4000',
      '--server-arg=--signing-threads=2',
      '--records',
    ]);
    expect(options).toEqual({
      clients: 300,
      strategy: 'A',
      outage: 'hang',
      workers: 0,
      connections: 16,
      seed: 7,
      outDir: 'tmp/drill',
      runName: 'a-hang',
      callIntervalS: 2.5,
      restarts: 5,
      phases: { rampS: 3, steadyS: 4, detectS: 5, standbyS: 6, recoveryS: 7, tailS: 8 },
      failover: {
        mainAttempts: 3,
        attemptTimeoutMs: 800,
        probeIntervalMs: 900,
        breaker: { failureThreshold: 3, halfOpenAfterMs: 1000, halfOpenMaxMs: 4000 },
      },
      herd: 'default',
      serverArgs: ['--signing-threads=2'],
      writeRecords: true,
    });
  });

  it('turns the herd controls off with --herd off, and lets a flag override it', () => {
    expect(failoverOf(['--herd', 'off'])).toEqual({
      probeMaxIntervalMs: 30_000,
      probeJitterRatio: 0,
      breaker: false,
    });
    expect(failoverOf(['--herd', 'off', '--probe-interval-ms', '5000'])).toEqual({
      probeIntervalMs: 5000,
      probeMaxIntervalMs: 5000,
      probeJitterRatio: 0,
      breaker: false,
    });
    expect(failoverOf(['--herd', 'off', '--probe-jitter', '0.25'])).toEqual({
      probeMaxIntervalMs: 30_000,
      probeJitterRatio: 0.25,
      breaker: false,
    });
    expect(failoverOf(['--breaker', 'on'])).toEqual({ breaker: {} });
    expect(failoverOf([])).toEqual({});
  });

  it('--quick: a few hundred apps in about a minute, each part overridable by its flag', () => {
    const quick = parseDrillArgs(['--quick']) as DrillOptions;
    expect(quick).toEqual({
      ...DRILL_DEFAULTS,
      clients: 300,
      workers: 1,
      callIntervalS: 2,
      restarts: 3,
      phases: { rampS: 5, steadyS: 8, detectS: 5, standbyS: 15, recoveryS: 15, tailS: 5 },
      failover: {
        probeIntervalMs: 1000,
        probeMaxIntervalMs: 2000,
        breaker: { halfOpenAfterMs: 1000, halfOpenMaxMs: 2000 },
      },
    });
    // About a minute of phases (the mock server and the fleet start in a few seconds more).
    const seconds = Object.values(quick.phases).reduce((a, b) => a + b, 0);
    expect(seconds).toBeGreaterThanOrEqual(45);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(quick.clients).toBe(QUICK_DRILL.clients);

    const a = parseDrillArgs([
      '--quick',
      '--strategy',
      'A',
      '--clients',
      '500',
      '--recovery',
      '20',
      '--probe-interval-ms',
      '500',
    ]) as DrillOptions;
    expect(a).toMatchObject({ strategy: 'A', clients: 500, restarts: 5, callIntervalS: 2 });
    expect(a.phases).toEqual({ ...QUICK_DRILL.phases, recoveryS: 20 });
    expect(a.failover).toEqual({ ...QUICK_DRILL.failover, probeIntervalMs: 500 });
    // --herd off wins over the preset's herd settings, with the preset's probe interval.
    expect(failoverOf(['--quick', '--herd', 'off'])).toEqual({
      probeIntervalMs: 1000,
      probeMaxIntervalMs: 1000,
      probeJitterRatio: 0,
      breaker: false,
    });
    expect(failoverOf(['--quick', '--breaker', 'off'])).toMatchObject({ breaker: false });
  });

  it('refuses bad values, naming the flag', () => {
    expect(() => parseDrillArgs(['--clients', '0'])).toThrow(/--clients/);
    expect(() => parseDrillArgs(['--clients', 'many'])).toThrow(/--clients/);
    expect(() => parseDrillArgs(['--strategy', 'C'])).toThrow(/--strategy must be one of A, B/);
    expect(() => parseDrillArgs(['--probe-jitter', '1.5'])).toThrow(/--probe-jitter/);
    expect(() => parseDrillArgs(['--workers', '1.5'])).toThrow(/integer/);
    expect(() => parseDrillArgs(['--breaker', 'off', '--breaker-threshold', '2'])).toThrow(
      /--breaker off/,
    );
    expect(() => parseDrillArgs(['--name', '../x'])).toThrow(/--name/);
    expect(() => parseDrillArgs(['--restarts', '20', '--clients', '10'])).toThrow(/--restarts/);
    expect(() => parseDrillArgs(['--bogus'])).toThrow();
  });
});
