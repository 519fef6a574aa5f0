// What a licensing client holds, in one place: the leases it got (checkout, renew, restore,
// checkoutProducts and the keepers' renewals) minus those it released or that expired on its
// clock, the service it routes to, whether its last exchange reached a service, and its last
// error. `client.has`, `client.status` and `client.subscribe` read it.
import type { LicensingEventHub } from '../client-hooks.js';
import {
  ApiResponseError,
  isLicensingError,
  type LeaseStoreInvalidError,
  type LicensingError,
} from '../errors.js';
import { argument } from '../internal/validate-option.js';
import type { Lease, LicensingLogger, LicensingService } from '../types.js';
import { MARK_INTERVAL_MS, type UseMark } from './use-mark.js';

/**
 * What a licensing client holds and how it reaches the services (`client.status()`): a frozen
 * snapshot, the same object until something changes.
 */
export interface LicensingStatus {
  /** The service the next call goes to first. */
  readonly activeService: LicensingService;
  /**
   * The leases the client holds, valid on its clock: those from `checkout`, `renew`, `restore`,
   * `checkoutProducts` and the keepers' renewals, in the order it got them (a renewal takes the
   * place of the lease it renewed), minus those released and those expired. `verify` adds none.
   */
  readonly leases: readonly Lease[];
  /**
   * True when the client's last exchange got an answer from a licensing service (a lease, or a
   * refusal such as a denied item or a dormant standby); false before the first exchange and after
   * a call no service could serve (`SERVICE_UNAVAILABLE`).
   */
  readonly online: boolean;
  /** The error of the last call that failed, until a later call succeeds. */
  readonly lastError?: LicensingError;
  /**
   * Why the lease store could not be written (`LEASE_STORE_INVALID`, reason `unwritable`), until
   * a save succeeds. The app keeps working on the leases it holds meanwhile; an offline restart
   * may lack what was not saved.
   */
  readonly storeError?: LeaseStoreInvalidError;
}

/** What {@link createClientStatus} reads: plain values of the client, passed down. */
export interface ClientStatusDeps {
  /** The trusted clock (`TrustedClock.now`'s owner): leases expire on it. */
  clock: { now(): number };
  /** Told of every held lease found valid: the time mark follows use. */
  useMark: UseMark;
  /** The lease store's state: why its last save failed, if it did. */
  store: { saveError(): LeaseStoreInvalidError | undefined };
  /** The failover strategy, for `activeService`. */
  strategy: { readonly activeService: LicensingService };
  /** The client's event hub: failover, failback and renewals change the status. */
  events: LicensingEventHub;
  /** Receives a listener that threw. */
  logger: LicensingLogger | undefined;
}

/** How a tracked call talks to the services. */
export interface TrackOptions<T> {
  /** The leases the call's result gives the client (checkout, restore, products). */
  held?: (value: T) => readonly Lease[];
  /** False for a call that sends nothing (restore): `online` stays as it was. Default true. */
  exchange?: boolean;
}

/** The client's status, fed by its operations (see {@link createClientStatus}). */
export interface ClientStatus {
  /** True while a held lease grants `item` on the clock. */
  has(item: string): boolean;
  /** The current snapshot: the same object until something changes. */
  snapshot(): LicensingStatus;
  /** Calls `listener()` after every change of the snapshot; returns an unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** The held leases that have not expired. */
  held(): Lease[];
  /** Stops holding leases by lease id (released: the app is done with them). */
  drop(leaseIds: readonly string[]): void;
  /** Records a call's outcome (and the leases it gave) and passes it through. */
  track<T>(call: Promise<T>, options?: TrackOptions<T>): Promise<T>;
  /** Stops the expiry timer and the event listeners; the last snapshot stays readable. */
  close(): void;
}

/** Codes of a refusal some licensing service answered with: the exchange reached a service. */
const ANSWERED = new Set(['STANDBY_DORMANT', 'LICENSE_DENIED', 'TOKEN_INVALID']);
/** Codes that describe the call, not the license (a programming error, a closed client). */
const NOT_STATUS = new Set(['INVALID_ARGUMENT', 'CLIENT_CLOSED']);
/** `setTimeout`'s longest delay. */
const MAX_TIMER_MS = 2_147_483_647;

function expiresAt(lease: Lease): number {
  return lease.claims.exp * 1000;
}

/** Whether `error` shows that a service answered (true), none did (false), or neither. */
function reachedBy(error: LicensingError): boolean | undefined {
  if (error.code === 'SERVICE_UNAVAILABLE') return false;
  if (error instanceof ApiResponseError || ANSWERED.has(error.code)) return true;
  return undefined;
}

/**
 * Creates the status of a licensing client. The snapshot is a frozen object replaced on every
 * change, so `useSyncExternalStore(client.subscribe, client.status)` re-renders exactly when
 * something changed; a lease leaves it when it expires (a timer at the earliest `exp`, and every
 * read checks the clock).
 *
 * @example
 * const status = createClientStatus({ clock, strategy, events, logger });
 * const result = await status.track(checkout(context, items), { held: (r) => r.leases });
 * status.has('ItemA'); // true
 */
export function createClientStatus(deps: ClientStatusDeps): ClientStatus {
  const { clock, strategy, events, logger, useMark, store } = deps;
  let leases: readonly Lease[] = Object.freeze([]);
  let online = false;
  let lastError: LicensingError | undefined;
  let current: LicensingStatus = Object.freeze({
    activeService: strategy.activeService,
    leases,
    online,
  });
  const listeners = new Set<() => void>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const notify = () => {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        logger?.warn('a licensing status listener threw', error);
      }
    }
  };

  /**
   * While leases are held, a tick at the earliest `exp` and at least every
   * {@link MARK_INTERVAL_MS}: expired leases leave, and the time mark follows use even when the
   * app asks nothing (timers count running time, so a sleep only delays a tick).
   */
  const arm = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (closed || leases.length === 0) return;
    const first = Math.min(...leases.map(expiresAt));
    const delay = Math.min(MAX_TIMER_MS, MARK_INTERVAL_MS, Math.max(0, first - clock.now()) + 1);
    timer = setTimeout(() => {
      timer = undefined;
      if (!commit('now')) arm();
    }, delay);
    (timer as { unref?: () => void }).unref?.();
  };

  /** A held lease is valid at `now`: the mark follows; a save it starts may change the status. */
  const used = (now: number) => {
    const saving = useMark.used(now);
    if (saving) void saving.then(() => commit('now'));
  };

  /** Drops expired leases and replaces the snapshot when anything differs from it. */
  const commit = (when: 'now' | 'later'): boolean => {
    const now = clock.now();
    if (leases.some((lease) => expiresAt(lease) <= now)) {
      leases = Object.freeze(leases.filter((lease) => expiresAt(lease) > now));
    }
    if (leases.length > 0 && !closed) used(now);
    const activeService = strategy.activeService;
    const storeError = store.saveError();
    const changed =
      current.activeService !== activeService ||
      current.leases !== leases ||
      current.online !== online ||
      current.lastError !== lastError ||
      current.storeError !== storeError;
    if (!changed) return false;
    current = Object.freeze({
      activeService,
      leases,
      online,
      ...(lastError === undefined ? {} : { lastError }),
      ...(storeError === undefined ? {} : { storeError }),
    });
    arm();
    // Inside `status()` (React's render), listeners are told after the current task's code.
    if (when === 'now') notify();
    else queueMicrotask(notify);
    return true;
  };

  /** Holds `fresh`, each in the place of a held lease of its id or of `replacing`. */
  const hold = (fresh: readonly Lease[], replacing?: string) => {
    if (fresh.length === 0) return;
    let next = [...leases];
    for (const lease of fresh) {
      const matches = (held: Lease) =>
        held.leaseId === lease.leaseId || (replacing !== undefined && held.leaseId === replacing);
      const at = next.findIndex(matches);
      if (at < 0) {
        next.push(lease);
        continue;
      }
      next[at] = lease;
      next = next.filter((held, i) => i <= at || !matches(held));
    }
    leases = Object.freeze(next);
  };

  const unsubscribe = [
    events.on('failover', () => commit('now')),
    events.on('failback', () => commit('now')),
    // Renewals (by `renew` or a keeper's new checkout) replace the lease they renewed.
    events.on('leaseRenewed', ({ previous, lease }) => {
      hold([lease], previous.leaseId);
      commit('now');
    }),
  ];

  return {
    has(item) {
      if (typeof item !== 'string' || item === '') {
        argument.fail('item', 'has() got no item name. Pass the name of a licensed item.');
      }
      const now = clock.now();
      const valid = leases.some((lease) => lease.item === item && expiresAt(lease) > now);
      if (valid && !closed) used(now);
      return valid;
    },
    snapshot() {
      commit('later');
      return current;
    },
    subscribe(listener) {
      argument.requireFn('listener', listener);
      const own = () => listener();
      listeners.add(own);
      return () => {
        listeners.delete(own);
      };
    },
    held() {
      const now = clock.now();
      return leases.filter((lease) => expiresAt(lease) > now);
    },
    drop(leaseIds) {
      const gone = new Set(leaseIds);
      if (!leases.some((lease) => gone.has(lease.leaseId))) return;
      leases = Object.freeze(leases.filter((lease) => !gone.has(lease.leaseId)));
      commit('now');
    },
    async track(call, options = {}) {
      const exchange = options.exchange ?? true;
      let value: Awaited<typeof call>;
      try {
        value = await call;
      } catch (error) {
        if (isLicensingError(error) && !NOT_STATUS.has(error.code)) {
          lastError = error;
          const reached = exchange ? reachedBy(error) : undefined;
          if (reached !== undefined) online = reached;
          commit('now');
        }
        throw error;
      }
      if (options.held) hold(options.held(value));
      lastError = undefined;
      if (exchange) online = true;
      commit('now');
      return value;
    },
    close() {
      closed = true;
      for (const off of unsubscribe) off();
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
