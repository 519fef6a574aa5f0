// When things happen in a drill: phase boundaries, each app's start and call phase, restarts.
import type { PhaseMarks } from './drill-figures.js';
import type { DrillOptions } from './drill-options.js';
import { createSeededRandom } from './seeded-random.js';

/** Random stream of the run-wide choices (restarts); app streams are the app indexes. */
const PLAN_STREAM = 0x7fff_ffff;

/**
 * Planned times of a run, in ms from its start (the epoch every worker shares): the phase
 * boundaries as planned (the run records when each action really completed as its marks).
 */
export interface DrillSchedule extends PhaseMarks {
  /** Apps that restart during the outage (distinct apps, in time order). */
  restarts: Array<{ app: number; atMs: number }>;
}

/**
 * Plans a run from its options: phases back to back, and `restarts` distinct apps restarting at
 * uniformly random times while main is broken (before and after the standby is enabled).
 *
 * @example
 * const schedule = planDrill(options);
 * setTimeout(breakMain, epoch + schedule.breakMs - Date.now());
 */
export function planDrill(options: DrillOptions): DrillSchedule {
  const p = options.phases;
  const rampEndMs = p.rampS * 1000;
  const breakMs = rampEndMs + p.steadyS * 1000;
  const enableMs = breakMs + p.detectS * 1000;
  const recoverMs = enableMs + p.standbyS * 1000;
  const disableMs = recoverMs + p.recoveryS * 1000;
  const endMs = disableMs + p.tailS * 1000;
  const random = createSeededRandom(options.seed, PLAN_STREAM);
  // A partial Fisher-Yates shuffle picks distinct apps.
  const apps = Array.from({ length: options.clients }, (_, i) => i);
  const count = Math.min(options.restarts, options.clients);
  const restarts: DrillSchedule['restarts'] = [];
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (apps.length - i));
    [apps[i], apps[j]] = [apps[j]!, apps[i]!];
    restarts.push({ app: apps[i]!, atMs: breakMs + random() * (recoverMs - breakMs) });
  }
  restarts.sort((a, b) => a.atMs - b.atMs);
  return { rampEndMs, breakMs, enableMs, recoverMs, disableMs, endMs, restarts };
}

/** When one app starts and the phase of its calls, in ms from the run's start. */
export interface AppSchedule {
  /** Its first checkout. */
  startMs: number;
  /** Offset of its calls within the call interval: calls at `startMs + phaseMs + k * interval`. */
  phaseMs: number;
}

/**
 * One app's start and call phase: starts are spread evenly over the ramp with a random offset
 * inside each app's slot, and the call phase is uniform over the call interval, so the fleet is
 * not synchronised by construction.
 */
export function scheduleApp(
  options: Pick<DrillOptions, 'seed' | 'clients' | 'callIntervalS' | 'phases'>,
  app: number,
): AppSchedule {
  const random = createSeededRandom(options.seed, app);
  const slotMs = (options.phases.rampS * 1000) / options.clients;
  return {
    startMs: (app + random()) * slotMs,
    phaseMs: random() * options.callIntervalS * 1000,
  };
}
