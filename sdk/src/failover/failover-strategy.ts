import type { LicensingEventHub } from '../client/licensing-events.js';
import type { ResolvedLicensingClientOptions } from '../options.js';
import type { LicensingService } from './classify-failure.js';

/**
 * One try of an operation against one service. Throws {@link FailedAttempt} for a classified
 * HTTP failure; anything else it throws ends the call as is.
 */
export type AttemptOperation<T> = (service: LicensingService, signal?: AbortSignal) => Promise<T>;

/** What a strategy needs from the client. */
export interface FailoverDeps {
  options: ResolvedLicensingClientOptions;
  events: LicensingEventHub;
  /** Standby `GET /enabled`; rejects when the standby cannot say. */
  checkStandbyEnabled(signal: AbortSignal): Promise<boolean>;
  /** True when the main service answers (a cheap request that moves no lease). */
  probeMain(signal: AbortSignal): Promise<boolean>;
}

/** Routes calls between the main and the standby service. */
export interface FailoverStrategy {
  run<T>(operation: AttemptOperation<T>, signal?: AbortSignal): Promise<T>;
  /** The service the next call goes to first. */
  readonly activeService: LicensingService;
  /** Stops background probes. */
  close(): void;
}
