// The drill's targets (issue 13), judged on a run's figures.
import type { DrillFigures } from './drill-figures.js';

/** One target and whether the run met it. */
export interface TargetCheck {
  name: string;
  /** The target as text, e.g. `<= 2`. */
  target: string;
  /** The run's figure; absent when the run could not produce it. */
  value?: number;
  met: boolean;
  /** What the figure is, where that is not obvious from the name. */
  note?: string;
}

/** What the targets depend on besides the figures. */
export interface TargetContext {
  strategy: 'A' | 'B';
  /** The attempt timeout the clients ran with, ms. */
  attemptTimeoutMs: number;
  /** The probe interval the clients ran with, ms. */
  probeIntervalMs: number;
  /** Whether Strategy A ran with its circuit breaker. */
  breaker: boolean;
}

/** Upper bound on main attempts per client per probe interval while on the standby (B). */
export const STICKY_ATTEMPTS_TARGET = 1;
/** Upper bound on main attempts per call after the breaker opened (A). */
export const BREAKER_ATTEMPTS_TARGET = 0.5;
/** Upper bound on main's recovery peak over its steady-state rate. */
export const RECOVERY_PEAK_TARGET = 2;

const atMost = (name: string, value: number | undefined, bound: number, note?: string) => {
  const check: TargetCheck = {
    name,
    target: `<= ${bound}`,
    met: value !== undefined && value <= bound,
  };
  if (value !== undefined) check.value = value;
  if (note !== undefined) check.note = note;
  return check;
};

/**
 * Judges the targets: no app without a valid lease; during the outage at most 1 main
 * attempt per client per probe interval (B, while on the standby) or 0.5 per call after the
 * breaker opened (A; without a breaker, the calls made on the standby while main was broken);
 * main's recovery peak at most 2x its steady rate; 99 % of the apps on a standby lease within
 * 2 x (attempt timeout + probe interval) of the standby's enabling.
 *
 * @example
 * for (const check of checkTargets(figures, context)) console.log(check.name, check.met);
 */
export function checkTargets(figures: DrillFigures, context: TargetContext): TargetCheck[] {
  const checks: TargetCheck[] = [
    atMost(
      'apps that lost a valid lease',
      figures.leases.lapsedApps,
      0,
      'a call refused a lease that had not expired',
    ),
    atMost(
      'apps without a lease at the end',
      figures.leases.withoutLeaseAtEnd,
      0,
      'could not get a first lease after their (re)start',
    ),
  ];
  if (context.strategy === 'B') {
    checks.push(
      atMost(
        'main attempts per client per probe interval on the standby',
        figures.main.whileOnStandby.ratio,
        STICKY_ATTEMPTS_TARGET,
        'every main request of clients sticky on the standby, standby enabled to main recovered',
      ),
    );
  } else if (context.breaker) {
    checks.push(
      atMost(
        'main attempts per call after the breaker opened',
        figures.main.perCallBreakerOpen.ratio,
        BREAKER_ATTEMPTS_TARGET,
        'calls started with the breaker open while main was broken',
      ),
    );
  } else {
    checks.push(
      atMost(
        'main attempts per call on the standby (no breaker)',
        figures.main.perCallOnStandby.ratio,
        BREAKER_ATTEMPTS_TARGET,
        'no breaker: calls made on the standby while main was broken',
      ),
    );
  }
  checks.push(
    atMost(
      "main's recovery peak over its steady rate",
      figures.main.recoveryPeakRatio,
      RECOVERY_PEAK_TARGET,
      'largest one-second count after recovery / steady-state requests per second',
    ),
  );
  const boundMs = 2 * (context.attemptTimeoutMs + context.probeIntervalMs);
  const p99 = figures.toStandby.fromEnable.p99Ms;
  checks.push({
    ...atMost(
      '99 % on a standby lease, s after enabling',
      p99 === undefined ? undefined : p99 / 1000,
      boundMs / 1000,
    ),
    note: `2 x (attempt timeout + probe interval) = ${boundMs / 1000} s`,
  });
  return checks;
}
