// The licensing client's event hooks (failover, failback, renewals, ...): payload types, listener
// types and the hub that emits them. Not the event-feed client, which lives in events/.
import type { LicensingError } from './errors.js';
import type { FailureReason, Lease, LicensingLogger, LicensingService } from './types.js';

/** Payload of the `failover` event: calls now go to the standby. */
export interface FailoverEvent {
  from: 'main';
  to: 'standby';
  strategy: 'A' | 'B';
  /**
   * Why main was left: how its last attempt failed (`connection-refused`, `server-error`,
   * `timeout`...), or `circuit-open` when Strategy A's breaker skipped main.
   */
  reason: FailureReason | 'circuit-open';
  /** The main-service error that triggered the switch. */
  cause: unknown;
}

/** Why the client moved back to the main service. */
export type FailbackReason =
  | 'main-answered'
  | 'main-recovered'
  | 'standby-disabled'
  | 'standby-forbidden'
  | 'standby-failed';

/** Payload of the `failback` event: calls go to the main service again. */
export interface FailbackEvent {
  from: 'standby';
  to: 'main';
  reason: FailbackReason;
}

/** Payload of the `attemptFailed` event: one HTTP attempt failed. */
export interface AttemptFailedEvent {
  service: LicensingService;
  /** 1-based attempt number on that service within the call. */
  attempt: number;
  reason: FailureReason;
  error: LicensingError;
  /** The wait before the next attempt on the same service, in ms, when there is one. */
  retryInMs?: number;
}

/** Payload of the `leaseRenewed` event. */
export interface LeaseRenewedEvent {
  previous: Lease;
  lease: Lease;
  /** True when the lease was checked out anew (a standby lease that main does not know). */
  reissued: boolean;
}

/** Payload of the `renewFailed` event (lease keeper): the keeper will try again. */
export interface RenewFailedEvent {
  lease: Lease;
  error: unknown;
  /** Consecutive failures for this lease. */
  failures: number;
  /** When the keeper tries again, in ms from now. */
  retryInMs: number;
  /** True when the lease has already expired. */
  expired: boolean;
}

/** Payload of the `idTokenGrace` event: an expired ID token is sent to the standby. */
export interface IdTokenGraceEvent {
  /** The token's `exp`, in ms since the epoch. */
  expiresAt: number;
}

/** What the verifier reports for an embedded root near its expiry. */
export interface RootExpiringInfo {
  /** The root's `keyId`, when it was given one. */
  keyId?: string;
  notAfter: Date;
  /** Whole days until `notAfter` (0 or negative once expired). */
  daysLeft: number;
}

/**
 * Payload of the `rootExpiring` event: an embedded root expires within 90 days (or has). It fires
 * while the client is being created, so listen with `options.on.rootExpiring`.
 */
export type RootExpiringEvent = RootExpiringInfo;

/**
 * Payload of the `circuitOpen` event (Strategy A): main failed on `failures` consecutive calls
 * (or a trial call failed), so calls go straight to the standby until a trial in `retryInMs`.
 */
export interface CircuitOpenEvent {
  failures: number;
  /** When the next trial call may try main, in ms from now. */
  retryInMs: number;
}

/** Payload of the `circuitClose` event (Strategy A): a trial call reached main again. */
export type CircuitCloseEvent = Record<string, never>;

/**
 * Payload of the `keysFetched` event: a service's JWK set was fetched (a token named a key the
 * client did not hold, or the first lease of that service). Each key is chain-checked when a token
 * first needs it.
 */
export interface KeysFetchedEvent {
  service: LicensingService;
  /** The `kid` of every key in the set, in its order. */
  keyIds: string[];
}

/** Every event of a licensing client, by name. */
export interface LicensingEventMap {
  failover: FailoverEvent;
  failback: FailbackEvent;
  attemptFailed: AttemptFailedEvent;
  leaseRenewed: LeaseRenewedEvent;
  renewFailed: RenewFailedEvent;
  idTokenGrace: IdTokenGraceEvent;
  rootExpiring: RootExpiringEvent;
  circuitOpen: CircuitOpenEvent;
  circuitClose: CircuitCloseEvent;
  keysFetched: KeysFetchedEvent;
}

/** A listener of event `K`. */
export type LicensingEventListener<K extends keyof LicensingEventMap> = (
  event: LicensingEventMap[K],
) => void;

/** Listeners given at creation (`options.on`), one per event name. */
export type LicensingEventHooks = {
  [K in keyof LicensingEventMap]?: LicensingEventListener<K>;
};

/** Subscribe side of the client's events. */
export interface LicensingEvents {
  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof LicensingEventMap>(name: K, listener: LicensingEventListener<K>): () => void;
}

/** Internal emitter: {@link LicensingEvents} plus `emit`. */
export interface LicensingEventHub extends LicensingEvents {
  emit<K extends keyof LicensingEventMap>(name: K, event: LicensingEventMap[K]): void;
  /** Removes every listener. */
  clear(): void;
}

/**
 * Creates the client's event hub. Listener errors are caught and passed to `logger.warn`, so a
 * faulty listener never breaks a licensing call or the lease keeper.
 *
 * @param tap Sees every event before the listeners (the client's telemetry); it must not throw.
 */
export function createEventHub(
  hooks: LicensingEventHooks,
  logger?: LicensingLogger,
  tap?: (name: keyof LicensingEventMap, event: unknown) => void,
): LicensingEventHub {
  const listeners = new Map<string, Set<(event: never) => void>>();
  const on = <K extends keyof LicensingEventMap>(name: K, listener: LicensingEventListener<K>) => {
    let set = listeners.get(name);
    if (!set) {
      set = new Set();
      listeners.set(name, set);
    }
    set.add(listener as (event: never) => void);
    return () => {
      set.delete(listener as (event: never) => void);
    };
  };
  for (const [name, listener] of Object.entries(hooks)) {
    if (listener) on(name as 'failover', listener as LicensingEventListener<'failover'>);
  }
  return {
    on,
    emit(name, event) {
      tap?.(name, event);
      for (const listener of listeners.get(name) ?? []) {
        try {
          (listener as (event: unknown) => void)(event);
        } catch (error) {
          logger?.warn(`licensing event listener for '${name}' threw`, error);
        }
      }
    },
    clear: () => listeners.clear(),
  };
}
