import { option } from '../internal/validate-option.js';
import { DEFAULTS } from './defaults.js';

/** Settings of a lease keeper (`client.keepAlive(leases, options)`). Durations in ms. */
export interface LeaseKeeperOptions {
  /**
   * Share of the wait until `refreshAt` taken off at random, so many apps do not renew in the
   * same second. From 0 to 1. Default 0.1.
   */
  jitterRatio?: number;
  /** First wait after a failed renewal, doubled per failure, with jitter, in ms. Default 1 000. */
  retryBaseMs?: number;
  /** Upper bound of the wait between failed renewals, in ms. Default 60 000. */
  retryMaxMs?: number;
  /** Release the kept leases on `close()`. Default true. */
  releaseOnClose?: boolean;
  /**
   * Renew at the latest this long after the last renewal, in ms, even before `refreshAt` (to see a
   * revocation or a failover sooner, or to make renewals visible in a demo). Default: none.
   */
  maxRefreshIntervalMs?: number;
}

/** Keeper settings after defaults and validation. */
export type ResolvedLeaseKeeperOptions = Required<LeaseKeeperOptions>;

/**
 * Applies `DEFAULTS.keeper` and validates a keeper's options once, when it is made. Throws an
 * `InvalidOptionError` naming the option.
 */
export function resolveLeaseKeeperOptions(options: unknown = {}): ResolvedLeaseKeeperOptions {
  const d = DEFAULTS.keeper;
  const o = option.object('keepAlive options', options);
  option.knownKeys('keepAlive options', o, [...Object.keys(d), 'maxRefreshIntervalMs']);
  return {
    jitterRatio: option.number('jitterRatio', o.jitterRatio, d.jitterRatio, { max: 1 }),
    retryBaseMs: option.number('retryBaseMs', o.retryBaseMs, d.retryBaseMs),
    retryMaxMs: option.number('retryMaxMs', o.retryMaxMs, d.retryMaxMs),
    releaseOnClose: option.boolean('releaseOnClose', o.releaseOnClose, d.releaseOnClose),
    maxRefreshIntervalMs: option.number(
      'maxRefreshIntervalMs',
      o.maxRefreshIntervalMs,
      Number.POSITIVE_INFINITY,
      { min: 1 },
    ),
  };
}
