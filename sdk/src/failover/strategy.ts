import type { LicensingEventHub } from '../client-hooks.js';
import type { ResolvedFailoverOptions } from '../options/licensing-client.js';
import type { LicensingTransport } from '../transport/licensing-transport.js';
import type { LicensingService } from '../types.js';

/**
 * One try of an operation against one service. Throws a `FailedAttempt` (transport) for a
 * classified HTTP failure; anything else it throws ends the call as is.
 */
export type AttemptOperation<T> = (service: LicensingService, signal?: AbortSignal) => Promise<T>;

/** What a strategy works with, passed down from the client as plain values. */
export interface StrategyDeps {
  failover: ResolvedFailoverOptions;
  /** Random source in [0, 1) for jitter. */
  random: () => number;
  /** Clock in ms since the epoch (the circuit breaker's). */
  now: () => number;
  events: LicensingEventHub;
  /** For the standby's `GET /enabled` and Strategy B's main probe. */
  transport: LicensingTransport;
}

/**
 * Routes calls between the main and the standby service (Strategy A or B; what fails over:
 * docs/protocol.md "Status codes and errors").
 */
export interface FailoverStrategy {
  run<T>(operation: AttemptOperation<T>, signal?: AbortSignal): Promise<T>;
  /**
   * Runs an operation only the main service offers (no failover), with the same main attempts;
   * rejects with `SERVICE_UNAVAILABLE` (cause: an AggregateError of the attempts) when main fails.
   */
  runOnMain<T>(operation: AttemptOperation<T>, signal?: AbortSignal): Promise<T>;
  /** The service the next call goes to first. */
  readonly activeService: LicensingService;
  /** Stops background probes. */
  close(): void;
}
