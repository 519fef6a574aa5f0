import { randomInt } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import { ApiError } from '../errors.js';

/**
 * What an injected fault does to a request: `reset` (TCP reset), `hang` (never answered),
 * `error` (an error status), `delay` (answered late), `truncate` (the answer's body cut off and
 * the socket closed), `captive-portal` (200 with an HTML login page instead of the answer).
 */
export type FaultMode = 'reset' | 'hang' | 'error' | 'delay' | 'truncate' | 'captive-portal';

/** Every {@link FaultMode}. */
export const FAULT_MODES: readonly FaultMode[] = [
  'reset',
  'hang',
  'error',
  'delay',
  'truncate',
  'captive-portal',
];

/** Statuses an `error` fault answers with: 429 (an ApiError) or a 5xx (an HTML page). */
export const FAULT_STATUSES = [429, 500, 502, 503, 504] as const;

/** A status from {@link FAULT_STATUSES}. */
export type FaultStatus = (typeof FAULT_STATUSES)[number];

/** The services a fault can target (docs/mock-server.md "Faults"). */
export const FAULT_SERVICES = ['main', 'standby', 'idp', 'events'] as const;

/** A service from {@link FAULT_SERVICES}. */
export type FaultService = (typeof FAULT_SERVICES)[number];

/**
 * How a faulted request ended without an HTTP answer: reset, hung until the client left, or
 * the client left during a delay.
 */
export type UnansweredOutcome = 'reset' | 'hang' | 'aborted';

/** Told about each request a fault left without an answer (the admin's live request log). */
export type UnansweredListener = (
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: UnansweredOutcome,
) => void;

/** Largest `seed` (seeds are non-negative 32-bit integers). */
export const MAX_FAULT_SEED = 2_147_483_647;

/** What to inject (the admin API's request body). */
export interface FaultSpec {
  /** Service it applies to. Default `main`. */
  service?: FaultService;
  /** Route under the service's base (e.g. `/authz/.jwt`), or `*` for all of them. Default `*`. */
  route?: string;
  mode: FaultMode;
  /** Status of an `error` fault. Default 503. */
  status?: FaultStatus;
  /** `Retry-After` of an `error` fault, in seconds. Default: no header. */
  retryAfterSeconds?: number;
  /** Delay of a `delay` fault, in ms. Default 1000. */
  delayMs?: number;
  /** Extra delay of a `delay` fault, uniform in `[0, jitterMs]`, drawn from the seed. Default 0. */
  jitterMs?: number;
  /** Apply to the next N hits only. Default: until cleared. */
  count?: number;
  /** Chance that a matching request is hit, 0 to 1. Default 1. */
  probability?: number;
  /** Seed of the hit/miss draws and the jitter. Default: a random one (shown in the list). */
  seed?: number;
  /** Hit only every n-th matching request (n, 2n, ...). Default 1 (every one). */
  every?: number;
}

/** An active fault as the admin API shows it. */
export interface Fault {
  service: FaultService;
  route: string;
  mode: FaultMode;
  status?: FaultStatus;
  retryAfterSeconds?: number;
  delayMs?: number;
  jitterMs?: number;
  probability?: number;
  seed?: number;
  every?: number;
  /** Hits it still applies to; absent means until cleared. */
  remaining?: number;
  /** Matching requests it applied to so far. */
  hits: number;
  /** Matching requests it let through (not the n-th, or the draw missed). */
  misses: number;
}

/** A hit: the fault and, for `delay`, how long this request waits. */
export interface FaultHit {
  fault: Fault;
  /** `delayMs` plus this request's jitter, for `delay` faults. */
  delayMs: number;
}

/** Options of {@link createFaultRegistry}. */
export interface FaultRegistryOptions {
  /** Base path of each service, e.g. `{ main: '/main', ... }`. */
  prefixes: Readonly<Record<FaultService, string>>;
  /** Told about each request a fault left without an answer. Default: nobody. */
  onUnanswered?: UnansweredListener;
}

/** Active faults by service and route, plus the requests they currently hold. */
export interface FaultRegistry {
  /** Base path of each service. */
  readonly prefixes: Readonly<Record<FaultService, string>>;
  /**
   * Sets the fault of a service's route, replacing any earlier one there. Throws a 400 ApiError
   * `invalid_request` for a route the service does not have or a value that does not fit.
   */
  set(spec: FaultSpec): Fault;
  /** Clears the faults matching `filter` (all without one); returns how many were cleared. */
  clear(filter?: { service?: FaultService; route?: string }): number;
  /** Every active fault, by service then route. */
  list(): Fault[];
  /** Records a route of a service (a path under its base), so faults can name it. */
  addRoute(service: FaultService, route: string): void;
  /** The routes of each service a fault can name (besides `*`), sorted. */
  routes(): Record<FaultService, string[]>;
  /**
   * Whether a request to `route` of `service` (undefined: no route matched) is hit: the route's
   * own fault first, else the service's `*` fault. Counts the hit or the miss.
   */
  take(service: FaultService, route: string | undefined): FaultHit | undefined;
  /** Requests held by `hang` faults or sleeping in `delay` faults right now. */
  readonly held: { hang: number; delay: number };
  /** Hits since start, by service: never decreasing, whatever faults were cleared (metrics). */
  readonly hitTotals: Readonly<Record<FaultService, number>>;
  /** Told about each request a fault left without an answer. */
  readonly onUnanswered: UnansweredListener | undefined;
}

interface Entry {
  fault: Fault;
  random: RandomGenerator;
  /** Matching requests seen so far. */
  seen: number;
}

const invalid = (description: string) => new ApiError(400, 'invalid_request', description);

/**
 * Creates an empty fault registry, shared by the admin API (which edits it) and the fault hook
 * (which consults it on each request to the services).
 *
 * A fault decides per matching request, in arrival order: with `every` n only the n-th, 2n-th,
 * ... can be hit; with `probability` p each one is hit when its draw in [0, 1) from the fault's
 * seeded generator (pure-rand's xoroshiro128+) falls below p. One draw is taken for every
 * matching request whatever the outcome, and a `delay` hit then draws its jitter, so the same
 * seed over the same requests gives the same hits, misses and delays.
 *
 * @example
 * const faults = createFaultRegistry({ prefixes: SERVICE_PREFIXES });
 * faults.set({ service: 'idp', route: '*', mode: 'reset', probability: 0.5, seed: 7 });
 */
export function createFaultRegistry(options: FaultRegistryOptions): FaultRegistry {
  const entries = new Map<string, Entry>();
  const known = Object.fromEntries(FAULT_SERVICES.map((s) => [s, new Set<string>()])) as Record<
    FaultService,
    Set<string>
  >;
  const held = { hang: 0, delay: 0 };
  const hitTotals = Object.fromEntries(FAULT_SERVICES.map((s) => [s, 0])) as Record<
    FaultService,
    number
  >;
  const keyOf = (service: string, route: string) => `${service} ${route}`;

  const check = (spec: FaultSpec): Fault => {
    const service = spec.service ?? 'main';
    const route = spec.route ?? '*';
    if (!FAULT_SERVICES.includes(service)) {
      throw invalid(`Unknown service ${service}; one of ${FAULT_SERVICES.join(', ')}`);
    }
    if (route !== '*' && !known[service].has(route)) {
      throw invalid(
        `The ${service} service has no route ${route}; one of *, ${[...known[service]].sort().join(', ')}`,
      );
    }
    // Members of another mode (`status` on a reset, `delayMs` on an error) are checked by the
    // schema like any value, then left out, as they always were.
    const fault: Fault = { service, route, mode: spec.mode, hits: 0, misses: 0 };
    if (spec.mode === 'error') {
      fault.status = spec.status ?? 503;
      if (spec.retryAfterSeconds !== undefined) fault.retryAfterSeconds = spec.retryAfterSeconds;
    }
    if (spec.mode === 'delay') {
      fault.delayMs = spec.delayMs ?? 1000;
      if (spec.jitterMs !== undefined) fault.jitterMs = spec.jitterMs;
    }
    if (spec.probability !== undefined) fault.probability = spec.probability;
    if (spec.probability !== undefined || fault.jitterMs !== undefined) {
      // A random seed is shown in the list, so a run can be repeated with it.
      fault.seed = spec.seed ?? randomInt(MAX_FAULT_SEED + 1);
    }
    if (spec.every !== undefined) fault.every = spec.every;
    if (spec.count !== undefined) fault.remaining = spec.count;
    return fault;
  };

  return {
    prefixes: options.prefixes,
    held,
    hitTotals,
    onUnanswered: options.onUnanswered,
    set(spec) {
      const fault = check(spec);
      entries.set(keyOf(fault.service, fault.route), {
        fault,
        random: xoroshiro128plus(fault.seed ?? 0),
        seen: 0,
      });
      return fault;
    },
    clear(filter = {}) {
      let cleared = 0;
      for (const [key, { fault }] of entries) {
        if (filter.service !== undefined && fault.service !== filter.service) continue;
        if (filter.route !== undefined && fault.route !== filter.route) continue;
        entries.delete(key);
        cleared++;
      }
      return cleared;
    },
    list: () =>
      [...entries.values()]
        .map((entry) => entry.fault)
        .sort(
          (a, b) =>
            FAULT_SERVICES.indexOf(a.service) - FAULT_SERVICES.indexOf(b.service) ||
            a.route.localeCompare(b.route),
        ),
    addRoute(service, route) {
      known[service].add(route);
    },
    routes: () =>
      Object.fromEntries(
        FAULT_SERVICES.map((service) => [service, [...known[service]].sort()]),
      ) as Record<FaultService, string[]>,
    take(service, route) {
      if (entries.size === 0) return undefined;
      const entry =
        (route !== undefined ? entries.get(keyOf(service, route)) : undefined) ??
        entries.get(keyOf(service, '*'));
      if (!entry) return undefined;
      const { fault, random } = entry;
      entry.seen++;
      const draw = uniformFloat64(random);
      const nth = fault.every === undefined || entry.seen % fault.every === 0;
      if (!nth || draw >= (fault.probability ?? 1)) {
        fault.misses++;
        return undefined;
      }
      fault.hits++;
      hitTotals[fault.service]++;
      const jitter = fault.jitterMs ? uniformInt(random, 0, fault.jitterMs) : 0;
      if (fault.remaining !== undefined && --fault.remaining <= 0) {
        entries.delete(keyOf(fault.service, fault.route));
      }
      return { fault, delayMs: (fault.delayMs ?? 0) + jitter };
    },
  };
}
