import { isLicensingError, LeaseStoreInvalidError } from '../errors.js';
import { messageOf } from '../internal/message-of.js';
import type { Lease, LeaseStore, LicensingLogger, LicensingService, SavedLease } from '../types.js';
import { peekClaims } from './lease-token.js';
import type { ServiceKeys } from './service-keys.js';
import { EMPTY_DOCUMENT, readStoreDocument, writeStoreDocument } from './store-document.js';
import type { TrustedClock } from './trusted-clock.js';

/** What {@link createLeaseState} works with, passed down from the client. */
export interface LeaseStateDeps {
  store: LeaseStore;
  clock: TrustedClock;
  keys: Record<LicensingService, ServiceKeys>;
  /** Clock difference tolerated on `exp`, in ms: a lease expired by more on the mark leaves. */
  toleranceMs: number;
  /** Receives store failures: an online call never fails because the store does. */
  logger: LicensingLogger | undefined;
}

/** How the last read of the store went. */
export type StoreStatus =
  | { trusted: true }
  | {
      trusted: false;
      /** Why (`unreadable`, `malformed`, `edited`, `sealed`). */
      error: LeaseStoreInvalidError;
    };

/**
 * The client's persistent state, the one owner of what the lease store holds: the saved
 * leases, each service's trusted keys and the clock's mark and offset (docs/trust-model.md,
 * "The lease store"). Loaded on first use, written whole after each change, one write at a
 * time. A store that could not be read is read again before the next write and never
 * overwritten unread; an edited or malformed one is replaced by the next write.
 */
export interface LeaseState {
  /** Reads the store on first use, and again while the last read failed. Never rejects. */
  load(): Promise<StoreStatus>;
  /** The saved leases (unverified: every read verifies them again). */
  leases(): readonly SavedLease[];
  /** Saves leases just verified, replacing the saved leases `replaced` names by lease id. */
  remember(leases: readonly Lease[], replaced?: readonly string[]): Promise<void>;
  /** Removes saved leases by lease id (released). */
  forget(leaseIds: readonly string[]): Promise<void>;
  /** Removes saved entries by token (refused for their signature, form or item). */
  discard(tokens: readonly string[]): Promise<void>;
  /** Writes the keys and the clock as they are now. */
  persist(): Promise<void>;
  /** The time mark the store holds: of the last document read or written, in ms. */
  savedMark(): number;
  /**
   * The time a restart would resume at, as the store holds it (`usedUntil`, else its mark): of
   * the last document read or written, in ms. A lease used past it is used where a kill would
   * lose the use.
   */
  savedUsedUntil(): number;
  /**
   * Why the last save failed (`LEASE_STORE_INVALID`, reason `unwritable`), until a save succeeds;
   * undefined while saves succeed. A failed save never fails a call: it is reported here and
   * through the logger.
   */
  saveError(): LeaseStoreInvalidError | undefined;
}

function leaseIdOf(token: string): string | undefined {
  const jti = peekClaims(token)?.jti;
  return typeof jti === 'string' ? jti : undefined;
}

/**
 * Creates the client's {@link LeaseState} on `deps.store`.
 *
 * @example
 * const state = createLeaseState({ store, clock, keys, toleranceMs: 60_000, logger });
 * const status = await state.load();
 * if (!status.trusted) throw status.error; // restore(): LEASE_STORE_INVALID
 */
export function createLeaseState(deps: LeaseStateDeps): LeaseState {
  const { store, clock, keys, toleranceMs, logger } = deps;
  let leases: SavedLease[] = [];
  let savedMark = 0;
  let savedUsedUntil = 0;
  let saveError: LeaseStoreInvalidError | undefined;
  let status: StoreStatus | undefined;
  let reading: Promise<StoreStatus> | undefined;
  let writing: Promise<void> = Promise.resolve();

  /** Takes a document read from the store; leases already in memory (this session's) win. */
  const adopt = async (text: string | undefined): Promise<StoreStatus> => {
    if (text === undefined) return { trusted: true };
    let document: ReturnType<typeof readStoreDocument>;
    try {
      document = readStoreDocument(text);
    } catch (error) {
      if (error instanceof LeaseStoreInvalidError) return { trusted: false, error };
      throw error;
    }
    savedMark = document.timeMark;
    savedUsedUntil = document.usedUntil ?? document.timeMark;
    const held = new Set(leases.map((lease) => leaseIdOf(lease.token)));
    leases = [...document.leases.filter((lease) => !held.has(leaseIdOf(lease.token))), ...leases];
    keys.main.restore(document.keys.main);
    keys.standby.restore(document.keys.standby);
    if (clock.anchored) {
      // Read late (an unreadable first read, then an online answer): the services' time and
      // offset learnt since stand, and the mark never falls below what the store kept.
      clock.raise(document.timeMark);
    } else {
      clock.restore({
        timeMark: Math.max(clock.mark, document.timeMark),
        offsetMs: document.offsetMs,
        usedUntil: document.usedUntil ?? document.timeMark,
      });
    }
    return { trusted: true };
  };

  const read = async (): Promise<StoreStatus> => {
    let text: string | undefined;
    try {
      text = await store.load();
    } catch (error) {
      if (isLicensingError(error) && error.code === 'LEASE_STORE_INVALID') {
        return { trusted: false, error: error as LeaseStoreInvalidError };
      }
      return {
        trusted: false,
        error: new LeaseStoreInvalidError(
          'unreadable',
          `The lease store could not be read (${messageOf(error)}); it is read again before anything is written to it. Check that the app can read its data directory.`,
          { cause: error },
        ),
      };
    }
    return adopt(text);
  };

  const load = (): Promise<StoreStatus> => {
    if (
      status !== undefined &&
      !(status.trusted === false && status.error.reason === 'unreadable')
    ) {
      return Promise.resolve(status);
    }
    reading ??= read()
      .then(
        (result) => {
          status = result;
          return result;
        },
        (error: unknown) => {
          // A key check that threw something unexpected: treat the store as unreadable.
          status = {
            trusted: false,
            error: new LeaseStoreInvalidError(
              'unreadable',
              `The lease store could not be read (${messageOf(error)}); it is read again before anything is written to it. Check the lease store (leaseStore) and what it holds.`,
              {
                cause: error,
              },
            ),
          };
          return status;
        },
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };

  /** Builds the document to write: leases expired on the time mark leave, the mark covers every iat. */
  const snapshot = () => {
    // After an online answer, an entry issued later than the services' time (beyond the
    // tolerance) is no lease this SDK accepted, only something planted in the store: it leaves,
    // so it cannot hold the mark above the services' time for ever.
    if (clock.anchored) {
      const ceiling = clock.mark + toleranceMs;
      leases = leases.filter((lease) => {
        const iat = peekClaims(lease.token)?.iat;
        return !(typeof iat === 'number' && iat * 1000 > ceiling);
      });
    }
    // The mark covers every held lease's iat, so the document keeps its own rule.
    let mark = clock.mark;
    for (const lease of leases) {
      const iat = peekClaims(lease.token)?.iat;
      if (typeof iat === 'number') mark = Math.max(mark, iat * 1000);
    }
    clock.raise(mark);
    leases = leases.filter((lease) => {
      const exp = peekClaims(lease.token)?.exp;
      return typeof exp === 'number' && exp * 1000 >= clock.mark - toleranceMs;
    });
    const time = clock.snapshot();
    return {
      time,
      text: writeStoreDocument({
        ...EMPTY_DOCUMENT,
        leases,
        keys: { main: keys.main.trusted(), standby: keys.standby.trusted() },
        ...time,
      }),
    };
  };

  const write = async () => {
    const current = await load();
    if (!current.trusted && current.error.reason === 'unreadable') {
      logger?.warn('the lease store is still unreadable: not overwriting it', current.error);
      return;
    }
    // The text's mark covers every lease's iat (the snapshot raised the clock's).
    const { text, time } = snapshot();
    try {
      await store.save(text);
      status = { trusted: true };
      savedMark = time.timeMark;
      savedUsedUntil = time.usedUntil;
      saveError = undefined;
    } catch (error) {
      logger?.warn('the lease store could not save', error);
      saveError = new LeaseStoreInvalidError(
        'unwritable',
        `The lease store could not be written (${messageOf(error)}); the app keeps the leases it holds and the next change tries again. Check that the app may write where leaseStore keeps its state.`,
        { cause: error },
      );
    }
  };

  const change = async (apply: () => void) => {
    await load();
    apply();
    writing = writing.then(write, write);
    await writing;
  };

  return {
    load,
    leases: () => leases,
    remember: (fresh, replaced = []) =>
      change(() => {
        const gone = new Set([...replaced, ...fresh.map((lease) => lease.leaseId)]);
        leases = [
          ...leases.filter((lease) => !gone.has(leaseIdOf(lease.token) ?? '')),
          ...fresh.map(({ item, token, servedBy }) => ({ item, token, servedBy })),
        ];
      }),
    forget: (leaseIds) =>
      change(() => {
        const gone = new Set(leaseIds);
        leases = leases.filter((lease) => !gone.has(leaseIdOf(lease.token) ?? ''));
      }),
    discard: (tokens) =>
      change(() => {
        const gone = new Set(tokens);
        leases = leases.filter((lease) => !gone.has(lease.token));
      }),
    persist: () => change(() => {}),
    savedMark: () => savedMark,
    savedUsedUntil: () => savedUsedUntil,
    saveError: () => saveError,
  };
}
