// Keeping leases alive (`client.keepAlive`): each lease renewed at its refresh time, on the
// client's trusted time, checked at least every minute of running so that a renewal that fell
// due during a system sleep starts within a minute of wake (DECISIONS.md "Trust while the app
// runs (fourth wave)").
import type { LicensingEventHub } from '../client-hooks.js';
import { isLicensingError, LicensingError } from '../errors.js';
import { computeBackoffDelay } from '../internal/backoff.js';
import { refreshTimeOf } from '../lease/lease.js';
import { type LeaseKeeperOptions, resolveLeaseKeeperOptions } from '../options/lease-keeper.js';
import type { CallOptions, Lease } from '../types.js';
import type { HeldOperations } from './held-operations.js';

export type { LeaseKeeperOptions } from '../options/lease-keeper.js';

/**
 * The longest a keeper's timer waits before it looks at the time again, in ms: timers count
 * running time, not the wall clock, so after a sleep a due renewal is seen within this.
 */
export const KEEPER_CHECK_INTERVAL_MS = 60_000;

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

/** What the keeper works with, passed down from the client. */
export interface LeaseKeeperDeps {
  /** The client's operations, recorded in its status. */
  operations: HeldOperations;
  events: LicensingEventHub;
  /** The client's trusted time (services' clock), ms. */
  clock: { now(): number };
  random: () => number;
}

interface Entry {
  lease: Lease;
  /** When to renew (or retry), on the trusted time. */
  dueAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  failures: number;
  /** Check the item out anew instead of renewing (the serving service refused the lease id). */
  reissue: boolean;
  controller: AbortController | undefined;
}

/** Refusals after which a renewal cannot succeed with the same lease id. */
const REISSUE_CODES = new Set(['NOT_FOUND', 'REQUEST_REJECTED', 'TOKEN_INVALID']);

/**
 * Creates a lease keeper (used by `client.keepAlive`). Renews each lease at its refresh time
 * (`rfr`, on the trusted time) minus jitter; after a failure it retries with jittered exponential
 * backoff (emitting `renewFailed`), through failover and failback. Its timers wait at most
 * {@link KEEPER_CHECK_INTERVAL_MS} before they look at the time again, and are unref'd so they
 * never keep a Node process alive.
 */
export function createLeaseKeeper(
  deps: LeaseKeeperDeps,
  options: LeaseKeeperOptions = {},
): LeaseKeeper {
  const { operations, events, clock, random } = deps;
  const { jitterRatio, retryBaseMs, retryMaxMs, releaseOnClose, maxRefreshIntervalMs } =
    resolveLeaseKeeperOptions(options);
  const entries = new Map<string, Entry>();
  let closed = false;

  const arm = (entry: Entry) => {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    const wait = Math.min(KEEPER_CHECK_INTERVAL_MS, Math.max(0, entry.dueAt - clock.now()));
    entry.timer = setTimeout(() => void tick(entry), wait);
    (entry.timer as { unref?: () => void }).unref?.();
  };

  const scheduleRefresh = (entry: Entry) => {
    const now = clock.now();
    const wait = Math.min(
      maxRefreshIntervalMs,
      Math.max(0, refreshTimeOf(entry.lease.claims) - now),
    );
    entry.dueAt = now + wait - random() * jitterRatio * wait;
    arm(entry);
  };

  const tick = async (entry: Entry) => {
    entry.timer = undefined;
    if (closed || entries.get(entry.lease.item) !== entry) return;
    // Not due yet (the timer only looked at the time): wait again.
    if (clock.now() < entry.dueAt) {
      arm(entry);
      return;
    }
    const controller = new AbortController();
    entry.controller = controller;
    const previous = entry.lease;
    try {
      let next: Lease;
      if (entry.reissue) {
        const result = await operations.reissue(previous, { signal: controller.signal });
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
        events.emit('leaseRenewed', { previous, lease: next, reissued: true });
      } else {
        next = await operations.renew(previous, { signal: controller.signal });
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
        random,
      });
      const now = clock.now();
      events.emit('renewFailed', {
        lease: previous,
        error,
        failures: entry.failures,
        retryInMs,
        expired: now >= previous.claims.exp * 1000,
      });
      entry.dueAt = now + retryInMs;
      arm(entry);
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
        dueAt: 0,
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
      await operations.release(leases, callOptions).catch(() => undefined);
    },
  };
}
