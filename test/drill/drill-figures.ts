// The drill's figures, computed from what the clients recorded: how fast the fleet reached the
// standby and came back, what main and the standby had to carry, and what went wrong.
import {
  EVENT_KINDS,
  FLAG,
  type FleetRecords,
  HOLDERS,
  NETWORK_OUTCOMES,
  ROUTES,
  SERVICES,
} from './fleet-records.js';

/** When each phase of a run began, ms from its start (the times the actions completed). */
export interface PhaseMarks {
  /** Every app has started by then; the steady state is measured from here. */
  rampEndMs: number;
  /** Main breaks. */
  breakMs: number;
  /** The standby is enabled. */
  enableMs: number;
  /**
   * When the enable action began. The standby may serve from then on, before `enableMs` when
   * the orchestrator is slow to see the admin call answered; time to the standby counts from
   * here. Absent in results written before it existed: `enableMs` then.
   */
  enableStartMs?: number;
  /** Main recovers. */
  recoverMs: number;
  /** The standby is disabled. */
  disableMs: number;
  /** The run ends. */
  endMs: number;
}

/** What the figures depend on besides the records. */
export interface FiguresInput {
  records: FleetRecords;
  marks: PhaseMarks;
  clients: number;
  /** The probe interval the clients ran with (Strategy B), ms. */
  probeIntervalMs: number;
}

/** Time for 50 %, 99 % and 100 % of a population to reach a state, ms (absent: not reached). */
export interface ShareTimes {
  population: number;
  reached: number;
  p50Ms?: number;
  p99Ms?: number;
  p100Ms?: number;
}

/** Main attempts against the calls or time they were spent on. */
export interface AttemptRate {
  /** Main requests counted. */
  mainRequests: number;
  /** What they are divided by (calls, or client-probe-intervals). */
  per: number;
  /** `mainRequests / per`; absent when `per` is 0. */
  ratio?: number;
}

/** Every figure of a run. Rates are per second, durations in ms. */
export interface DrillFigures {
  leases: {
    /** Apps that held a lease which a call then refused while it was still valid (target 0). */
    lapsedApps: number;
    lapsesByCode: Record<string, number>;
    /** Apps holding no lease at the end, i.e. that could not get a first lease since their (re)start. */
    withoutLeaseAtEnd: number;
    /** Apps that restarted during the outage, and how long their first lease took. */
    restarts: ShareTimes;
  };
  /** Apps holding a standby lease, counted from the standby's enabling and from main's break. */
  toStandby: { fromEnable: ShareTimes; fromBreak: ShareTimes };
  /**
   * From main's recovery: apps holding a standby lease then, back on a main lease; apps whose
   * client was on the standby then (`activeService`), to the SDK's `failback` event.
   */
  failback: { holdingMain: ShareTimes; sdkFailbackEvent: ShareTimes };
  main: {
    steadyRps: number;
    /** Largest one-second count of the steady state: the noise around `steadyRps`. */
    steadyPeakRps: number;
    /** Main requests per client per minute while main was broken, and its two halves. */
    outagePerClientPerMinute: { whole: number; standbyDormant: number; standbyEnabled: number };
    recoveryPeakRps: number;
    recoveryPeakAtMs: number;
    /** `recoveryPeakRps / steadyRps`. */
    recoveryPeakRatio?: number;
    /**
     * Strategy B: main requests of clients sticky on the standby between enable and recovery
     * (probes and any other), per client per probe interval spent sticky.
     */
    whileOnStandby: AttemptRate & { probes: number; authz: number; stickyClientMs: number };
    /** Strategy A: main requests per call of calls that started with the breaker open (outage). */
    perCallBreakerOpen: AttemptRate;
    /** Main requests per call of calls made on the standby while main was broken. */
    perCallOnStandby: AttemptRate;
  };
  standby: { requests: number; peakRps: number; peakAtMs: number };
  calls: {
    total: number;
    failed: number;
    /** Failed calls by phase and code. */
    errorsByPhase: Record<string, Record<string, number>>;
    /** Call duration p50 / p99 by phase, ms. */
    durationByPhase: Record<string, { calls: number; p50Ms: number; p99Ms: number }>;
  };
  /** Requests by service and outcome (HTTP status or network failure). */
  requestOutcomes: Record<string, Record<string, number>>;
  /** One-second series from the run's start: requests/s and apps per lease holder. */
  series: {
    stepMs: number;
    mainRps: number[];
    standbyRps: number[];
    onMain: number[];
    onStandby: number[];
    withoutLease: number[];
  };
}

const PHASES = ['ramp', 'steady', 'detect', 'standby', 'recovery', 'tail'] as const;
const STEP_MS = 1000;

/** The phase a time falls in. */
export function phaseAt(marks: PhaseMarks, t: number): (typeof PHASES)[number] {
  if (t < marks.rampEndMs) return 'ramp';
  if (t < marks.breakMs) return 'steady';
  if (t < marks.enableMs) return 'detect';
  if (t < marks.recoverMs) return 'standby';
  if (t < marks.disableMs) return 'recovery';
  return 'tail';
}

/**
 * Times at which 50 %, 99 % and 100 % of `population` had reached a state, given each member's
 * reach time (relative to the reference). The q-share is reached when ceil(q × population)
 * members have: an order statistic, never interpolated, absent while too few reached.
 */
export function shareTimes(reachTimes: readonly number[], population: number): ShareTimes {
  const sorted = [...reachTimes].sort((a, b) => a - b);
  const at = (q: number) => {
    const k = Math.max(1, Math.ceil(q * population));
    return k <= sorted.length ? sorted[k - 1] : undefined;
  };
  const result: ShareTimes = { population, reached: sorted.length };
  const p50 = at(0.5);
  const p99 = at(0.99);
  const p100 = at(1);
  if (population > 0) {
    if (p50 !== undefined) result.p50Ms = p50;
    if (p99 !== undefined) result.p99Ms = p99;
    if (p100 !== undefined) result.p100Ms = p100;
  }
  return result;
}

/** Counts per `STEP_MS` bin of the times in [0, endMs). */
function bin(times: Iterable<number>, endMs: number): number[] {
  const bins = new Array<number>(Math.ceil(endMs / STEP_MS)).fill(0);
  for (const t of times) {
    const i = Math.floor(t / STEP_MS);
    if (i >= 0 && i < bins.length) bins[i]! += 1;
  }
  return bins;
}

/**
 * Largest bin among those wholly inside [fromMs, toMs], and where it starts: a second that
 * straddles a phase boundary belongs to neither phase (it mixes both kinds of traffic).
 */
function peak(bins: readonly number[], fromMs: number, toMs: number) {
  let best = { rps: 0, atMs: fromMs };
  for (
    let i = Math.max(0, Math.ceil(fromMs / STEP_MS));
    (i + 1) * STEP_MS <= toMs && i < bins.length;
    i++
  ) {
    if (bins[i]! > best.rps) best = { rps: bins[i]!, atMs: i * STEP_MS };
  }
  return best;
}

/** Adds one to `table[group][key]`. */
function count(table: Record<string, Record<string, number>>, group: string, key: string) {
  const row = table[group] ?? {};
  row[key] = (row[key] ?? 0) + 1;
  table[group] = row;
}

function rate(mainRequests: number, per: number): AttemptRate {
  return per > 0 ? { mainRequests, per, ratio: mainRequests / per } : { mainRequests, per };
}

function outcomeLabel(outcome: number): string {
  if (outcome >= 0) return String(outcome);
  const entry = Object.entries(NETWORK_OUTCOMES).find(([, value]) => value === outcome);
  return entry ? entry[0] : 'other';
}

function percentileOf(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Indexes 0..n-1 ordered by `t`. */
function byTime(t: readonly number[]): number[] {
  return Array.from(t.keys()).sort((a, b) => t[a]! - t[b]!);
}

/**
 * Computes every figure of a run from the clients' records (see {@link DrillFigures}). Apps are
 * counted by index: a restarted app is the same app with a new client.
 *
 * @example
 * const figures = computeDrillFigures({ records, marks, clients: 10_000, probeIntervalMs: 30_000 });
 * console.log(figures.toStandby.fromEnable.p99Ms);
 */
export function computeDrillFigures(input: FiguresInput): DrillFigures {
  const { records, marks, clients, probeIntervalMs } = input;
  const { requests, calls, leases, events } = records;
  const MAIN = SERVICES.indexOf('main');
  const STANDBY = SERVICES.indexOf('standby');
  const kind = (name: (typeof EVENT_KINDS)[number]) => EVENT_KINDS.indexOf(name);

  // Lease holders over time, per app, and the series of apps per holder.
  const holder = new Array<number>(clients).fill(0);
  const held = { main: 0, standby: 0 };
  const onMain: number[] = [];
  const onStandby: number[] = [];
  const withoutLease: number[] = [];
  const steps = Math.ceil(marks.endMs / STEP_MS);
  const reachStandby: number[] = [];
  const reachStandbyFromBreak: number[] = [];
  const reachedStandby = new Set<number>();
  const enabledFromMs = marks.enableStartMs ?? marks.enableMs;
  // Apps holding a standby lease at recovery and still to reach a main lease.
  const failbackPopulation = new Set<number>();
  const reachMain: number[] = [];
  let recoverSeen = false;
  const MAIN_HOLDER = HOLDERS.indexOf('main');
  const STANDBY_HOLDER = HOLDERS.indexOf('standby');
  const takeFailbackPopulation = () => {
    recoverSeen = true;
    holder.forEach((h, app) => {
      if (h === STANDBY_HOLDER) failbackPopulation.add(app);
    });
  };
  const order = byTime(leases.t);
  let next = 0;
  for (let step = 0; step < steps; step++) {
    const stepEnd = (step + 1) * STEP_MS;
    while (next < order.length && leases.t[order[next]!]! < stepEnd) {
      const i = order[next++]!;
      const t = leases.t[i]!;
      const app = leases.app[i]!;
      if (!recoverSeen && t >= marks.recoverMs) takeFailbackPopulation();
      const before = holder[app]!;
      const after = leases.holder[i]!;
      if (before === MAIN_HOLDER) held.main--;
      if (before === STANDBY_HOLDER) held.standby--;
      if (after === MAIN_HOLDER) held.main++;
      if (after === STANDBY_HOLDER) held.standby++;
      holder[app] = after;
      if (after === STANDBY_HOLDER && t >= enabledFromMs && !reachedStandby.has(app)) {
        reachedStandby.add(app);
        reachStandby.push(t - enabledFromMs);
        reachStandbyFromBreak.push(t - marks.breakMs);
      }
      if (after === MAIN_HOLDER && recoverSeen && failbackPopulation.delete(app)) {
        reachMain.push(t - marks.recoverMs);
      }
    }
    if (!recoverSeen && stepEnd > marks.recoverMs) takeFailbackPopulation();
    onMain.push(held.main);
    onStandby.push(held.standby);
    withoutLease.push(clients - held.main - held.standby);
  }
  const failbackSize = reachMain.length + failbackPopulation.size;

  // Client events: time spent on the standby (the SDK's `activeService`, from its failover and
  // failback events), the SDK's failback of the apps on the standby at recovery, lapses, restarts.
  const sdkFailback: number[] = [];
  let onStandbyAtRecovery: Set<number> | undefined;
  const lapses = new Map<number, string>();
  const restartAt = new Map<number, number>();
  const stickySince = new Map<number, number>();
  let stickyClientMs = 0;
  const clip = (from: number, to: number) =>
    Math.max(0, Math.min(to, marks.recoverMs) - Math.max(from, marks.enableMs));
  for (const i of byTime(events.t)) {
    const t = events.t[i]!;
    const app = events.app[i]!;
    const k = events.kind[i]!;
    if (!onStandbyAtRecovery && t >= marks.recoverMs)
      onStandbyAtRecovery = new Set(stickySince.keys());
    if (k === kind('failback') || k === kind('restart')) {
      const since = stickySince.get(app);
      if (since !== undefined) stickyClientMs += clip(since, t);
      stickySince.delete(app);
    }
    if (k === kind('failover')) stickySince.set(app, t);
    if (k === kind('failback') && onStandbyAtRecovery?.delete(app)) {
      sdkFailback.push(t - marks.recoverMs);
    }
    if (k === kind('lapse') && !lapses.has(app)) {
      lapses.set(app, records.codes[events.detail[i]!] ?? 'unknown');
    }
    if (k === kind('restart')) restartAt.set(app, t);
  }
  for (const since of stickySince.values()) stickyClientMs += clip(since, marks.recoverMs);
  onStandbyAtRecovery ??= new Set(stickySince.keys());
  const sdkFailbackSize = sdkFailback.length + onStandbyAtRecovery.size;
  const lapsesByCode: Record<string, number> = {};
  for (const code of lapses.values()) lapsesByCode[code] = (lapsesByCode[code] ?? 0) + 1;

  // Restarted apps: time from their restart to their next lease.
  const restartReach: number[] = [];
  for (const i of order) {
    const app = leases.app[i]!;
    const since = restartAt.get(app);
    if (since !== undefined && leases.t[i]! >= since && leases.holder[i]! !== 0) {
      restartReach.push(leases.t[i]! - since);
      restartAt.delete(app);
    }
  }

  // Requests: rates, peaks, the outage's main load, what sticky clients still sent to main.
  const mainTimes: number[] = [];
  const standbyTimes: number[] = [];
  const requestOutcomes: Record<string, Record<string, number>> = {};
  const sticky = { all: 0, probes: 0, authz: 0 };
  const outageMain = { dormant: 0, enabled: 0 };
  const AUTHZ = ROUTES.indexOf('authz');
  for (let i = 0; i < requests.t.length; i++) {
    const t = requests.t[i]!;
    const service = requests.service[i]!;
    count(requestOutcomes, SERVICES[service] ?? 'other', outcomeLabel(requests.outcome[i]!));
    if (service === STANDBY) standbyTimes.push(t);
    if (service !== MAIN) continue;
    mainTimes.push(t);
    if (t >= marks.breakMs && t < marks.enableMs) outageMain.dormant++;
    if (t >= marks.enableMs && t < marks.recoverMs) {
      outageMain.enabled++;
      const flags = requests.flags[i]!;
      if (flags & (FLAG.onStandby | FLAG.probe)) {
        sticky.all++;
        if (flags & FLAG.probe) sticky.probes++;
        if (requests.route[i] === AUTHZ) sticky.authz++;
      }
    }
  }
  const mainBins = bin(mainTimes, marks.endMs);
  const standbyBins = bin(standbyTimes, marks.endMs);
  const steadyMs = marks.breakMs - marks.rampEndMs;
  const steadyCount = mainTimes.filter((t) => t >= marks.rampEndMs && t < marks.breakMs).length;
  const steadyRps = steadyMs > 0 ? (steadyCount * 1000) / steadyMs : 0;
  const recovery = peak(mainBins, marks.recoverMs, marks.endMs);
  const standbyPeak = peak(standbyBins, 0, marks.endMs);
  const perMinute = (count: number, ms: number) =>
    ms > 0 && clients > 0 ? count / clients / (ms / 60_000) : 0;

  // Calls: errors and durations by phase, main attempts per call.
  const errorsByPhase: Record<string, Record<string, number>> = {};
  const durations = new Map<string, number[]>();
  let failed = 0;
  const breakerOpen = { calls: 0, main: 0 };
  const onStandbyCalls = { calls: 0, main: 0 };
  for (let i = 0; i < calls.t.length; i++) {
    const t = calls.t[i]!;
    const phase = phaseAt(marks, t);
    const list = durations.get(phase) ?? [];
    list.push(calls.dur[i]!);
    durations.set(phase, list);
    const code = calls.code[i]!;
    if (code >= 0) {
      failed++;
      count(errorsByPhase, phase, records.codes[code] ?? 'unknown');
    }
    if (t < marks.breakMs || t >= marks.recoverMs) continue;
    const flags = calls.flags[i]!;
    if (flags & FLAG.breakerOpen) {
      breakerOpen.calls++;
      breakerOpen.main += calls.mainRequests[i]!;
    }
    if (flags & FLAG.onStandby) {
      onStandbyCalls.calls++;
      onStandbyCalls.main += calls.mainRequests[i]!;
    }
  }
  const durationByPhase: DrillFigures['calls']['durationByPhase'] = {};
  for (const phase of PHASES) {
    const list = durations.get(phase);
    if (!list) continue;
    list.sort((a, b) => a - b);
    durationByPhase[phase] = {
      calls: list.length,
      p50Ms: percentileOf(list, 0.5),
      p99Ms: percentileOf(list, 0.99),
    };
  }

  const stickyIntervals = stickyClientMs / probeIntervalMs;
  const figures: DrillFigures = {
    leases: {
      lapsedApps: lapses.size,
      lapsesByCode,
      withoutLeaseAtEnd: holder.filter((h) => h === 0).length,
      restarts: shareTimes(restartReach, restartReach.length + restartAt.size),
    },
    toStandby: {
      fromEnable: shareTimes(reachStandby, clients),
      fromBreak: shareTimes(reachStandbyFromBreak, clients),
    },
    failback: {
      holdingMain: shareTimes(reachMain, failbackSize),
      sdkFailbackEvent: shareTimes(sdkFailback, sdkFailbackSize),
    },
    main: {
      steadyRps,
      steadyPeakRps: peak(mainBins, marks.rampEndMs, marks.breakMs).rps,
      outagePerClientPerMinute: {
        whole: perMinute(outageMain.dormant + outageMain.enabled, marks.recoverMs - marks.breakMs),
        standbyDormant: perMinute(outageMain.dormant, marks.enableMs - marks.breakMs),
        standbyEnabled: perMinute(outageMain.enabled, marks.recoverMs - marks.enableMs),
      },
      recoveryPeakRps: recovery.rps,
      recoveryPeakAtMs: recovery.atMs - marks.recoverMs,
      whileOnStandby: {
        ...rate(sticky.all, stickyIntervals),
        probes: sticky.probes,
        authz: sticky.authz,
        stickyClientMs,
      },
      perCallBreakerOpen: rate(breakerOpen.main, breakerOpen.calls),
      perCallOnStandby: rate(onStandbyCalls.main, onStandbyCalls.calls),
    },
    standby: {
      requests: standbyTimes.length,
      peakRps: standbyPeak.rps,
      peakAtMs: standbyPeak.atMs,
    },
    calls: { total: calls.t.length, failed, errorsByPhase, durationByPhase },
    requestOutcomes,
    series: {
      stepMs: STEP_MS,
      mainRps: mainBins,
      standbyRps: standbyBins,
      onMain,
      onStandby,
      withoutLease,
    },
  };
  if (steadyRps > 0) figures.main.recoveryPeakRatio = recovery.rps / steadyRps;
  return figures;
}
