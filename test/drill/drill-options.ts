// The drill's settings: their types, defaults, and the one parser of `npm run drill -- <flags>`.
import { parseArgs } from 'node:util';
import { DEFAULTS, type FailoverOptions } from '@standby-licensing/sdk';

/** How main breaks: its port refuses connections, it never answers, or it answers 503. */
export type OutageKind = 'refused' | 'hang' | '503';

/**
 * Failover options handed to every client besides the strategy: only the ones a flag set, the
 * SDK's defaults for the rest.
 */
export type DrillFailoverOptions = Pick<
  FailoverOptions,
  | 'mainAttempts'
  | 'attemptTimeoutMs'
  | 'probeIntervalMs'
  | 'probeMaxIntervalMs'
  | 'probeJitterRatio'
  | 'breaker'
>;

/** Phase lengths in seconds, in the order the drill runs them. */
export interface DrillPhases {
  /** Apps start (one checkout each), spread evenly with a random offset. */
  rampS: number;
  /** Everyone on main; the steady-state request rate is measured here. */
  steadyS: number;
  /** Main is broken, the standby still dormant (the vendor has not reacted yet). */
  detectS: number;
  /** Main broken, standby enabled. */
  standbyS: number;
  /** Main back, standby still enabled: the failback. */
  recoveryS: number;
  /** Standby disabled again. */
  tailS: number;
}

/** Everything a drill run needs. */
export interface DrillOptions {
  /** Simulated apps (one SDK licensing client each). */
  clients: number;
  strategy: 'A' | 'B';
  outage: OutageKind;
  /** Client worker processes; 0 runs the fleet inside the calling process (tests). */
  workers: number;
  /** Connections per origin of each worker's shared connection pool. */
  connections: number;
  /** Seed of every random choice of the drill (phases, start times, restarts, SDK jitter). */
  seed: number;
  /** Folder for `<run>.json` and `<run>.svg`. */
  outDir: string;
  /** File name stem of the results. Default: strategy, outage, clients, herd and a timestamp. */
  runName: string | undefined;
  /** Seconds between two licensing calls of one app (each app has its own random phase). */
  callIntervalS: number;
  /** Apps that restart during the outage and must check out a fresh lease. */
  restarts: number;
  phases: DrillPhases;
  failover: DrillFailoverOptions;
  /** `off`: herd controls explicitly off; `default`: whatever the SDK defaults to. */
  herd: 'off' | 'default';
  /** Extra command-line options of the mock server (e.g. a signing pool size). */
  serverArgs: string[];
  /** Also write every client-side record to `<run>.records.json` (large). */
  writeRecords: boolean;
}

/** Defaults of the full run (10 000 clients); durations in seconds. */
export const DRILL_DEFAULTS: Readonly<DrillOptions> = Object.freeze({
  clients: 10_000,
  strategy: 'B',
  outage: 'refused',
  workers: 2,
  connections: 128,
  seed: 1,
  outDir: 'test/drill/results',
  runName: undefined,
  callIntervalS: 30,
  restarts: 100,
  phases: Object.freeze({
    rampS: 150,
    steadyS: 60,
    detectS: 30,
    standbyS: 150,
    recoveryS: 300,
    tailS: 30,
  }),
  failover: Object.freeze({}),
  herd: 'default',
  serverArgs: [],
  writeRecords: false,
}) as DrillOptions;

/**
 * `--quick`: a few hundred apps through the same outage in about a minute, for a first look and
 * for checking a change before a full run. The apps call every 2 s instead of 30 s, so the
 * phases can be seconds long; probes (1 s, backed off to at most 2 s) and the breaker's half-open
 * waits (1 s, at most 2 s) are scaled down with them, so that the fleet fails back within the
 * 15 s recovery. Any flag given besides `--quick` overrides its part of the preset.
 */
export const QUICK_DRILL: Readonly<
  Pick<DrillOptions, 'clients' | 'workers' | 'callIntervalS' | 'phases' | 'failover'>
> = Object.freeze({
  clients: 300,
  workers: 1,
  callIntervalS: 2,
  phases: Object.freeze({
    rampS: 5,
    steadyS: 8,
    detectS: 5,
    standbyS: 15,
    recoveryS: 15,
    tailS: 5,
  }),
  failover: Object.freeze({
    probeIntervalMs: 1_000,
    probeMaxIntervalMs: 2_000,
    breaker: Object.freeze({ halfOpenAfterMs: 1_000, halfOpenMaxMs: 2_000 }),
  }),
});

/** What `npm run drill -- --help` prints. */
export const DRILL_USAGE = `npm run drill -- [options]

Runs N real SDK licensing clients against the mock server through a scripted outage:
steady state on main, main breaks, standby enabled, main recovers, standby disabled.
The default is the full run: ${DRILL_DEFAULTS.clients} apps, about 12 minutes. For a first look:

  npm run drill -- --quick   ${QUICK_DRILL.clients} apps calling every ${QUICK_DRILL.callIntervalS} s, phases ${Object.values(QUICK_DRILL.phases).join(', ')} s,
                             probes and breaker waits of 1-2 s: about a minute. Other flags
                             override its parts (e.g. --quick --strategy A)

  --clients <n>            simulated apps (default ${DRILL_DEFAULTS.clients})
  --strategy A|B           failover strategy (default ${DRILL_DEFAULTS.strategy})
  --outage refused|hang|503  how main breaks (default ${DRILL_DEFAULTS.outage})
  --workers <n>            client worker processes (default ${DRILL_DEFAULTS.workers}; 0 = in process)
  --connections <n>        connections per origin of each worker's pool (default ${DRILL_DEFAULTS.connections})
  --seed <n>               seed of every random choice (default ${DRILL_DEFAULTS.seed})
  --out <dir>              results folder (default ${DRILL_DEFAULTS.outDir})
  --name <stem>            results file name stem (default: derived from the options)
  --call-interval <s>      seconds between two calls of one app (default ${DRILL_DEFAULTS.callIntervalS})
  --restarts <n>           apps restarting during the outage (default: 1 % of clients, at least 1)
  --ramp <s> --steady <s> --detect <s> --standby <s> --recovery <s> --tail <s>
                           phase lengths in seconds (defaults ${Object.values(DRILL_DEFAULTS.phases).join(', ')})
  --main-attempts <n>      failover.mainAttempts (default: the SDK's)
  --attempt-timeout-ms <ms>  failover.attemptTimeoutMs (default: the SDK's)
  --probe-interval-ms <ms> failover.probeIntervalMs (default: the SDK's)
  --probe-max-interval-ms <ms>  failover.probeMaxIntervalMs (Strategy B probe backoff cap)
  --herd off|default       off: probes neither jittered nor backed off, no breaker (the SDK before
                           the herd controls);
                           default: the SDK's defaults (default)
  --probe-jitter <0..1>    failover.probeJitterRatio (Strategy B)
  --breaker on|off         failover.breaker (Strategy A); on = the SDK's breaker defaults
  --breaker-threshold <n>  breaker.failureThreshold
  --breaker-half-open-ms <ms>      breaker.halfOpenAfterMs
  --breaker-half-open-max-ms <ms>  breaker.halfOpenMaxMs
  --server-arg <arg>       extra mock-server option, repeatable (e.g. --server-arg=--signing-threads=2)
  --quick                  the quick preset above
  --records                also write every client-side record to <name>.records.json (large)
  --reanalyze <json>       (alone) recompute a kept run's figures, targets and chart from its
                           <name>.json and <name>.records.json
  --help                   this text
`;

const FLAGS = {
  clients: { type: 'string' },
  strategy: { type: 'string' },
  outage: { type: 'string' },
  workers: { type: 'string' },
  connections: { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  name: { type: 'string' },
  'call-interval': { type: 'string' },
  restarts: { type: 'string' },
  ramp: { type: 'string' },
  steady: { type: 'string' },
  detect: { type: 'string' },
  standby: { type: 'string' },
  recovery: { type: 'string' },
  tail: { type: 'string' },
  'main-attempts': { type: 'string' },
  'attempt-timeout-ms': { type: 'string' },
  'probe-interval-ms': { type: 'string' },
  'probe-max-interval-ms': { type: 'string' },
  herd: { type: 'string' },
  'probe-jitter': { type: 'string' },
  breaker: { type: 'string' },
  'breaker-threshold': { type: 'string' },
  'breaker-half-open-ms': { type: 'string' },
  'breaker-half-open-max-ms': { type: 'string' },
  'server-arg': { type: 'string', multiple: true },
  records: { type: 'boolean' },
  quick: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

/** A number flag: finite, within bounds, an integer when asked. */
function numberFlag(
  flag: string,
  raw: string | undefined,
  { min = 0, max = Number.POSITIVE_INFINITY, integer = false } = {},
): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new TypeError(`--${flag} must be a number from ${min} to ${max}, got '${raw}'`);
  }
  if (integer && !Number.isInteger(value)) {
    throw new TypeError(`--${flag} must be an integer, got '${raw}'`);
  }
  return value;
}

function choiceFlag<T extends string>(
  flag: string,
  raw: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (raw === undefined) return undefined;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new TypeError(`--${flag} must be one of ${choices.join(', ')}, got '${raw}'`);
  }
  return raw as T;
}

/** `--breaker` and its parameters, on top of what `--herd` (or the preset) chose. */
function breakerFrom(
  values: Record<string, string | undefined>,
  herd: 'off' | 'default',
  preset: DrillFailoverOptions['breaker'],
): DrillFailoverOptions['breaker'] {
  const mode = choiceFlag('breaker', values.breaker, ['on', 'off'] as const);
  const params = {
    failureThreshold: numberFlag('breaker-threshold', values['breaker-threshold'], {
      min: 1,
      integer: true,
    }),
    halfOpenAfterMs: numberFlag('breaker-half-open-ms', values['breaker-half-open-ms'], { min: 1 }),
    halfOpenMaxMs: numberFlag('breaker-half-open-max-ms', values['breaker-half-open-max-ms'], {
      min: 1,
    }),
  };
  const given = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  if (mode === 'off') {
    if (Object.keys(given).length > 0) {
      throw new TypeError('--breaker off takes no --breaker-* parameters');
    }
    return false;
  }
  if (mode === 'on' || Object.keys(given).length > 0) return given;
  return herd === 'off' ? false : preset;
}

/**
 * Failover options from the flags: only what was asked for, what `--herd off` implies, and what
 * the preset (`--quick`) sets and no flag overrides.
 */
function failoverFrom(
  values: Record<string, string | undefined>,
  herd: 'off' | 'default',
  preset: DrillFailoverOptions,
) {
  const failover: DrillFailoverOptions = {};
  const mainAttempts = numberFlag('main-attempts', values['main-attempts'], {
    min: 1,
    integer: true,
  });
  const attemptTimeoutMs = numberFlag('attempt-timeout-ms', values['attempt-timeout-ms'], {
    min: 1,
  });
  const probeIntervalMs =
    numberFlag('probe-interval-ms', values['probe-interval-ms'], { min: 1 }) ??
    preset.probeIntervalMs;
  // Herd off: probes neither jittered nor backed off (every probe interval the base one).
  const probeMaxIntervalMs =
    numberFlag('probe-max-interval-ms', values['probe-max-interval-ms'], { min: 1 }) ??
    (herd === 'off'
      ? (probeIntervalMs ?? DEFAULTS.failover.probeIntervalMs)
      : preset.probeMaxIntervalMs);
  const probeJitterRatio =
    numberFlag('probe-jitter', values['probe-jitter'], { min: 0, max: 1 }) ??
    (herd === 'off' ? 0 : undefined);
  const breaker = breakerFrom(values, herd, preset.breaker);
  if (mainAttempts !== undefined) failover.mainAttempts = mainAttempts;
  if (attemptTimeoutMs !== undefined) failover.attemptTimeoutMs = attemptTimeoutMs;
  if (probeIntervalMs !== undefined) failover.probeIntervalMs = probeIntervalMs;
  if (probeMaxIntervalMs !== undefined) failover.probeMaxIntervalMs = probeMaxIntervalMs;
  if (probeJitterRatio !== undefined) failover.probeJitterRatio = probeJitterRatio;
  if (breaker !== undefined) failover.breaker = breaker;
  return failover;
}

/**
 * Parses the drill's command line. Durations of phases and the call interval are in seconds,
 * SDK options in ms (their unit in the SDK). Returns `'help'` for `--help`.
 *
 * @throws TypeError naming the flag for an unknown flag or a bad value.
 * @example
 * const options = parseDrillArgs(['--clients', '500', '--strategy', 'A', '--outage', 'hang']);
 */
export function parseDrillArgs(argv: readonly string[]): DrillOptions | 'help' {
  const { values } = parseArgs({ args: [...argv], options: FLAGS, strict: true });
  if (values.help) return 'help';
  const v = values as Record<string, string | undefined>;
  const d: DrillOptions = values.quick ? { ...DRILL_DEFAULTS, ...QUICK_DRILL } : DRILL_DEFAULTS;
  const clients = numberFlag('clients', v.clients, { min: 1, integer: true }) ?? d.clients;
  const herd = choiceFlag('herd', v.herd, ['off', 'default'] as const) ?? d.herd;
  const phase = (flag: keyof typeof FLAGS, fallback: number) =>
    numberFlag(flag, v[flag], { min: 0 }) ?? fallback;
  const options: DrillOptions = {
    clients,
    strategy: choiceFlag('strategy', v.strategy, ['A', 'B'] as const) ?? d.strategy,
    outage: choiceFlag('outage', v.outage, ['refused', 'hang', '503'] as const) ?? d.outage,
    workers: numberFlag('workers', v.workers, { min: 0, max: 64, integer: true }) ?? d.workers,
    connections:
      numberFlag('connections', v.connections, { min: 1, max: 10_000, integer: true }) ??
      d.connections,
    seed: numberFlag('seed', v.seed, { min: 0, max: 2 ** 31 - 1, integer: true }) ?? d.seed,
    outDir: v.out ?? d.outDir,
    runName: v.name,
    callIntervalS:
      numberFlag('call-interval', v['call-interval'], { min: 0.05 }) ?? d.callIntervalS,
    restarts:
      numberFlag('restarts', v.restarts, { min: 0, max: clients, integer: true }) ??
      Math.max(1, Math.round(clients / 100)),
    phases: {
      rampS: phase('ramp', d.phases.rampS),
      steadyS: phase('steady', d.phases.steadyS),
      detectS: phase('detect', d.phases.detectS),
      standbyS: phase('standby', d.phases.standbyS),
      recoveryS: phase('recovery', d.phases.recoveryS),
      tailS: phase('tail', d.phases.tailS),
    },
    failover: failoverFrom(v, herd, d.failover),
    herd,
    serverArgs: (values['server-arg'] as string[] | undefined) ?? [],
    writeRecords: values.records === true,
  };
  if (options.runName !== undefined && !/^[\w.-]+$/.test(options.runName)) {
    throw new TypeError(
      `--name may hold letters, digits, '.', '_' and '-', got '${options.runName}'`,
    );
  }
  return options;
}
