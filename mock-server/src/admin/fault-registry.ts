import type { FastifyReply, FastifyRequest } from 'fastify';

/** What an injected fault does to a request. */
export type FaultMode = 'reset' | 'hang' | 'error' | 'delay';

/** How a faulted request ended without an HTTP answer: reset, hung until the client left, or
 * the client left during a delay. */
export type UnansweredOutcome = 'reset' | 'hang' | 'aborted';

/** Told about each request a fault left without an answer (the admin's live request log). */
export type UnansweredListener = (
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: UnansweredOutcome,
) => void;

/** Options of {@link createFaultRegistry}. */
export interface FaultRegistryOptions {
  /** Told about each request a fault left without an answer. Default: nobody. */
  onUnanswered?: UnansweredListener;
}

/** Routes of the main service a fault can target; `*` targets every main route. */
export const FAULT_ROUTES = [
  '*',
  '/authz/.jwt',
  '/authz/.json',
  '/licensing/actions/checkout',
  '/.well-known/jwks.json',
] as const;

/** A main route name from {@link FAULT_ROUTES}. */
export type FaultRoute = (typeof FAULT_ROUTES)[number];

/** What to inject (the admin API's request body). */
export interface FaultSpec {
  /** Route it applies to. Default `*`. */
  route?: FaultRoute;
  mode: FaultMode;
  /** HTTP status of an `error` fault: 500 or 503. Default 503. */
  status?: 500 | 503;
  /** `Retry-After` of an `error` fault, in seconds. Default: no header. */
  retryAfterSeconds?: number;
  /** Delay of a `delay` fault, in ms. */
  delayMs?: number;
  /** Apply to the next N requests only. Default: until cleared. */
  count?: number;
}

/** An active fault. */
export interface Fault {
  route: FaultRoute;
  mode: FaultMode;
  status?: 500 | 503;
  retryAfterSeconds?: number;
  delayMs?: number;
  /** Requests it still applies to; absent means until cleared. */
  remaining?: number;
  /** Requests it has applied to so far. */
  hits: number;
}

/** Active faults by route, plus the requests they currently hold. */
export interface FaultRegistry {
  /** Sets the fault of a route, replacing any earlier one there. */
  set(spec: FaultSpec): Fault;
  /** Clears the fault of `route`, or every fault; returns how many were cleared. */
  clear(route?: FaultRoute): number;
  list(): Fault[];
  /** The fault for a request to `route` (exact route first, then `*`), counting it as used. */
  take(route: string | undefined): Fault | undefined;
  /** Requests held by `hang` faults or sleeping in `delay` faults right now. */
  readonly held: { hang: number; delay: number };
  /** Told about each request a fault left without an answer. */
  readonly onUnanswered: UnansweredListener | undefined;
}

/**
 * Creates an empty fault registry, shared by the admin API (which edits it) and the main
 * service (which consults it on each request).
 *
 * @example
 * const faults = createFaultRegistry();
 * faults.set({ route: '/authz/.jwt', mode: 'error', status: 503, count: 2 });
 */
export function createFaultRegistry(options: FaultRegistryOptions = {}): FaultRegistry {
  const faults = new Map<string, Fault>();
  const held = { hang: 0, delay: 0 };
  return {
    held,
    onUnanswered: options.onUnanswered,
    set(spec) {
      const fault: Fault = { route: spec.route ?? '*', mode: spec.mode, hits: 0 };
      if (spec.mode === 'error') {
        fault.status = spec.status ?? 503;
        if (spec.retryAfterSeconds !== undefined) fault.retryAfterSeconds = spec.retryAfterSeconds;
      }
      if (spec.mode === 'delay') fault.delayMs = spec.delayMs ?? 1000;
      if (spec.count !== undefined) fault.remaining = spec.count;
      faults.set(fault.route, fault);
      return fault;
    },
    clear(route) {
      if (route === undefined) {
        const count = faults.size;
        faults.clear();
        return count;
      }
      return faults.delete(route) ? 1 : 0;
    },
    list: () => [...faults.values()],
    take(route) {
      if (faults.size === 0) return undefined;
      const fault = (route !== undefined ? faults.get(route) : undefined) ?? faults.get('*');
      if (!fault) return undefined;
      fault.hits++;
      if (fault.remaining !== undefined && --fault.remaining <= 0) faults.delete(fault.route);
      return fault;
    },
  };
}
