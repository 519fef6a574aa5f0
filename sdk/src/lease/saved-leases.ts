import { decodeJwt } from 'jose';
import { LicensingError } from '../errors.js';
import type {
  JwkSet,
  Lease,
  LeaseStore,
  LicensingLogger,
  LicensingService,
  SavedLease,
  SavedLicensingState,
} from '../types.js';

/** What {@link createSavedLeases} works with. */
export interface SavedLeasesDeps {
  store: LeaseStore;
  now: () => number;
  /** The clock difference tolerated before a clock counts as set back, in ms. */
  clockToleranceMs: number;
  /** Receives store failures: licensing calls never fail because a store does. */
  logger: LicensingLogger | undefined;
}

/** The client's view of its lease store (see {@link createSavedLeases}). */
export interface SavedLeases {
  /** Loads the store once; later calls share that load. Never rejects. */
  ready(): Promise<void>;
  /** Throws `CLOCK_ROLLBACK` when the clock is more than the tolerance behind the trusted time. */
  assertClock(): void;
  /** The saved leases (tokens unverified: the caller verifies each read). */
  leases(): readonly SavedLease[];
  /** The saved JWK set of a service, if any. */
  jwks(service: LicensingService): JwkSet | undefined;
  /** Saves leases just verified (replacing `replaced` lease ids) and moves the trusted time. */
  remember(leases: readonly Lease[], replaced?: readonly string[]): Promise<void>;
  /** Moves the trusted time to a verified lease's `iat` (in ms) when it is later. */
  trust(issuedAt: number): Promise<void>;
  /** Forgets leases by id (released). */
  forget(leaseIds: readonly string[]): Promise<void>;
  /** Forgets saved entries by token (they no longer verify). */
  discard(tokens: readonly string[]): Promise<void>;
  /** Saves a JWK set a service just published. */
  rememberJwks(service: LicensingService, jwks: JwkSet): Promise<void>;
}

const EMPTY: SavedLicensingState = { version: 1, leases: [], jwks: {}, trustedTime: 0 };

function isService(value: unknown): value is LicensingService {
  return value === 'main' || value === 'standby';
}

/** The state if `value` has its shape, else undefined (a damaged store loads as empty). */
function readState(value: unknown): SavedLicensingState | undefined {
  const state = value as Partial<SavedLicensingState> | null | undefined;
  if (typeof state !== 'object' || state === null || state.version !== 1) return undefined;
  if (!Array.isArray(state.leases) || typeof state.trustedTime !== 'number') return undefined;
  const leases = state.leases.filter(
    (lease): lease is SavedLease =>
      typeof lease?.item === 'string' &&
      typeof lease.token === 'string' &&
      isService(lease.servedBy),
  );
  const jwks: SavedLicensingState['jwks'] = {};
  for (const service of ['main', 'standby'] as const) {
    const set = state.jwks?.[service];
    if (set && Array.isArray(set.keys)) jwks[service] = set;
  }
  return { version: 1, leases, jwks, trustedTime: state.trustedTime };
}

/** `jti` and `exp` (ms) of a saved token, read without verifying (only to sort the store). */
function peek(token: string): { leaseId?: string; expiresAt?: number } {
  try {
    const { jti, exp } = decodeJwt(token);
    return {
      ...(typeof jti === 'string' ? { leaseId: jti } : {}),
      ...(typeof exp === 'number' ? { expiresAt: exp * 1000 } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * Keeps the client's leases, both services' JWK sets and the latest trusted time in a
 * {@link LeaseStore} (DECISIONS.md "SDK additions"): loaded once, saved whole after each change,
 * one write at a time. The trusted time is the largest `iat` of any verified lease; a local clock
 * more than the tolerance behind it was set back (`CLOCK_ROLLBACK`), as licensing peers detect to
 * stop a user from stretching a lease by rewinding the clock.
 */
export function createSavedLeases(deps: SavedLeasesDeps): SavedLeases {
  const { store, now, clockToleranceMs, logger } = deps;
  let state: SavedLicensingState = EMPTY;
  let loaded: Promise<void> | undefined;
  let writing: Promise<void> = Promise.resolve();

  const save = () => {
    const snapshot = state;
    writing = writing.then(
      () =>
        store.save(snapshot).catch((error: unknown) => {
          logger?.warn('the lease store could not save', error);
        }),
      () => undefined,
    );
    return writing;
  };

  const change = async (next: (current: SavedLicensingState) => SavedLicensingState) => {
    await saved.ready();
    state = next(state);
    await save();
  };

  const saved: SavedLeases = {
    ready() {
      loaded ??= (async () => {
        try {
          const value = await store.load();
          if (value === undefined) return;
          const read = readState(value);
          if (read) state = read;
          else logger?.warn('the lease store holds something else than saved leases; ignored');
        } catch (error) {
          logger?.warn('the lease store could not load', error);
        }
      })();
      return loaded;
    },
    assertClock() {
      const at = now();
      if (at + clockToleranceMs < state.trustedTime) {
        throw new LicensingError(
          'CLOCK_ROLLBACK',
          `The clock reads ${new Date(at).toISOString()}, earlier than ${new Date(state.trustedTime).toISOString()}, when a verified lease was already issued: the clock was set back`,
        );
      }
    },
    leases: () => state.leases,
    jwks: (service) => state.jwks[service],
    remember: (leases, replaced = []) =>
      change((current) => {
        const gone = new Set([...replaced, ...leases.map((lease) => lease.leaseId)]);
        const at = now();
        return {
          ...current,
          leases: [
            // Expired leases leave the store with the next change.
            ...current.leases.filter((lease) => !gone.has(peek(lease.token).leaseId ?? '')),
            ...leases.map(({ item, token, servedBy }) => ({ item, token, servedBy })),
          ].filter((lease) => (peek(lease.token).expiresAt ?? at) >= at - clockToleranceMs),
          trustedTime: Math.max(
            current.trustedTime,
            ...leases.map((lease) => lease.claims.iat * 1000),
          ),
        };
      }),
    trust: async (issuedAt) => {
      await saved.ready();
      if (issuedAt <= state.trustedTime) return;
      state = { ...state, trustedTime: issuedAt };
      await save();
    },
    forget: (leaseIds) =>
      change((current) => {
        const gone = new Set(leaseIds);
        return {
          ...current,
          leases: current.leases.filter((lease) => !gone.has(peek(lease.token).leaseId ?? '')),
        };
      }),
    discard: (tokens) =>
      change((current) => {
        const gone = new Set(tokens);
        return { ...current, leases: current.leases.filter((lease) => !gone.has(lease.token)) };
      }),
    rememberJwks: (service, jwks) =>
      change((current) => ({ ...current, jwks: { ...current.jwks, [service]: jwks } })),
  };
  return saved;
}
