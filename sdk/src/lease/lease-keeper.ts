import type { LicensingEventHub } from '../client-hooks.js';
import { isLicensingError, LicensingError } from '../errors.js';
import { computeBackoffDelay } from '../internal/backoff.js';
import { type LeaseKeeperOptions, resolveLeaseKeeperOptions } from '../options/lease-keeper.js';
import type { CallOptions, CheckoutResult, Lease } from '../types.js';

export type { LeaseKeeperOptions } from '../options/lease-keeper.js';

/** Keeps leases alive: renews each at its `refreshAt`, retries with backoff, never throws. */
export interface LeaseKeeper {
  /** Starts keeping `lease` (replacing a kept lease of the same item). */
  add(lease: Lease): void;
  /** Stops keeping the item's lease without releasing it; returns it. */
  remove(item: string): Lease | undefined;
  /** The current lease of `item` (renewals replace it). */
  get(item: string): Lease | undefined;
  /** The current leases. */
  readonly leases: Lease[];
  /** Stops renewing and releases the leases (unless `releaseOnClose` is false). Never rejects. */
  close(options?: CallOptions): Promise<void>;
}

/** What the keeper works with: the client's operations and clock, passed down as plain values. */
export interface LeaseKeeperDeps {
  renew(lease: Lease, options?: CallOptions): Promise<Lease>;
  /** Checks `lease`'s item out anew, the granted lease taking `lease`'s place where it is saved. */
  reissue(lease: Lease, options?: CallOptions): Promise<CheckoutResult>;
  release(leases: readonly Lease[], options?: CallOptions): Promise<void>;
  events: LicensingEventHub;
  now: () => number;
  random: () => number;
}

interface Entry {
  lease: Lease;
  timer: ReturnType<typeof setTimeout> | undefined;
  failures: number;
  /** Check the item out anew instead of renewing (the serving service refused the lease id). */
  reissue: boolean;
  controller: AbortController | undefined;
}

/** Refusals after which a renewal cannot succeed with the same lease id. */
const REISSUE_CODES = new Set(['NOT_FOUND', 'REQUEST_REJECTED', 'TOKEN_INVALID']);

/**
 * Creates a lease keeper (used by `client.keepAlive`). Renews each lease at `refreshAt` minus
 * jitter; after a failure it retries with jittered exponential backoff (emitting `renewFailed`),
 * through failover and failback. Timers are unref'd so they never keep a Node process alive.
 */
export function createLeaseKeeper(
  host: LeaseKeeperDeps,
  options: LeaseKeeperOptions = {},
): LeaseKeeper {
  const { jitterRatio, retryBaseMs, retryMaxMs, releaseOnClose, maxRefreshIntervalMs } =
    resolveLeaseKeeperOptions(options);
  const entries = new Map<string, Entry>();
  let closed = false;

  const arm = (entry: Entry, delayMs: number) => {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void tick(entry), Math.max(0, delayMs));
    (entry.timer as { unref?: () => void }).unref?.();
  };

  const scheduleRefresh = (entry: Entry) => {
    const wait = Math.min(maxRefreshIntervalMs, Math.max(0, entry.lease.refreshAt - host.now()));
    arm(entry, wait - host.random() * jitterRatio * wait);
  };

  const tick = async (entry: Entry) => {
    entry.timer = undefined;
    if (closed || entries.get(entry.lease.item) !== entry) return;
    const controller = new AbortController();
    entry.controller = controller;
    const previous = entry.lease;
    try {
      let next: Lease;
      if (entry.reissue) {
        const result = await host.reissue(previous, { signal: controller.signal });
        const granted = result.leases[0];
        if (!granted) {
          const denial = result.denied[0];
          throw new LicensingError(
            'LICENSE_DENIED',
            `'${previous.item}' was denied${denial ? `: ${denial.code}` : ''}. Check the user's license for it on the main service.`,
            { cause: denial },
          );
        }
        next = granted;
        host.events.emit('leaseRenewed', { previous, lease: next, reissued: true });
      } else {
        next = await host.renew(previous, { signal: controller.signal });
      }
      if (closed || entries.get(previous.item) !== entry) return;
      entry.lease = next;
      entry.failures = 0;
      entry.reissue = false;
      scheduleRefresh(entry);
    } catch (error) {
      if (closed || entries.get(previous.item) !== entry) return;
      entry.failures += 1;
      if (isLicensingError(error) && REISSUE_CODES.has(error.code)) entry.reissue = true;
      const retryInMs = computeBackoffDelay(entry.failures - 1, {
        baseMs: retryBaseMs,
        maxMs: retryMaxMs,
        random: host.random,
      });
      host.events.emit('renewFailed', {
        lease: previous,
        error,
        failures: entry.failures,
        retryInMs,
        expired: host.now() >= previous.expiresAt,
      });
      arm(entry, retryInMs);
    } finally {
      if (entry.controller === controller) entry.controller = undefined;
    }
  };

  const stop = (entry: Entry) => {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.controller?.abort();
  };

  return {
    add(lease) {
      if (closed) return;
      const existing = entries.get(lease.item);
      if (existing) stop(existing);
      const entry: Entry = {
        lease,
        timer: undefined,
        failures: 0,
        reissue: false,
        controller: undefined,
      };
      entries.set(lease.item, entry);
      scheduleRefresh(entry);
    },
    remove(item) {
      const entry = entries.get(item);
      if (!entry) return undefined;
      stop(entry);
      entries.delete(item);
      return entry.lease;
    },
    get: (item) => entries.get(item)?.lease,
    get leases() {
      return [...entries.values()].map((entry) => entry.lease);
    },
    async close(callOptions = {}) {
      if (closed) return;
      closed = true;
      const leases = [...entries.values()].map((entry) => {
        stop(entry);
        return entry.lease;
      });
      entries.clear();
      if (!releaseOnClose || leases.length === 0) return;
      // Best effort: release has no semantic effect on the standby and must not block shutdown.
      await host.release(leases, callOptions).catch(() => undefined);
    },
  };
}
