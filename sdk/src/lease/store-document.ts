// The lease store's document: what a `LeaseStore` keeps as text, read with every check of
// docs/trust-model.md ("The lease store") and written whole.
import { LeaseStoreInvalidError } from '../errors.js';
import type { JwkSet, LicensingService, SavedLease, SavedLicensingState } from '../types.js';
import { peekClaims } from './lease-token.js';
import { MAX_CLOCK_SKEW_MS, MAX_TIME_MS } from './trusted-clock.js';

type Jwk = Record<string, unknown>;

/** The document of a store that holds nothing yet. */
export const EMPTY_DOCUMENT: SavedLicensingState = Object.freeze({
  version: 2,
  leases: [],
  keys: { main: [], standby: [] },
  timeMark: 0,
  offsetMs: 0,
}) as SavedLicensingState;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(message: string, cause?: unknown): LeaseStoreInvalidError {
  return new LeaseStoreInvalidError(
    'malformed',
    `The lease store holds ${message}. It is replaced at the next successful checkout; until then restore() has no leases to give. Check that nothing but the SDK writes to the lease store.`,
    { cause },
  );
}

function edited(message: string): LeaseStoreInvalidError {
  return new LeaseStoreInvalidError(
    'edited',
    `The lease store was edited: ${message}. It is replaced at the next successful checkout. Seal the store (seal/unseal) to make edits detectable as such.`,
  );
}

function readLeases(value: unknown): SavedLease[] {
  if (!Array.isArray(value)) throw malformed('no leases array');
  return value.map((entry: unknown, index) => {
    if (
      !isObject(entry) ||
      typeof entry.item !== 'string' ||
      entry.item === '' ||
      typeof entry.token !== 'string' ||
      (entry.servedBy !== 'main' && entry.servedBy !== 'standby')
    ) {
      throw malformed(`a lease entry (leases[${index}]) that is not { item, token, servedBy }`);
    }
    return { item: entry.item, token: entry.token, servedBy: entry.servedBy as LicensingService };
  });
}

function readKeyList(value: unknown, service: LicensingService): Jwk[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isObject)) {
    throw malformed(`a ${service} key list that is not an array of JWKs`);
  }
  return value;
}

/** The keys of a version 1 document (whole JWK sets per service). */
function readVersion1Keys(value: unknown): SavedLicensingState['keys'] {
  const sets = value === undefined ? {} : value;
  if (!isObject(sets)) throw malformed('a jwks member that is not an object');
  const keysOf = (service: LicensingService) => {
    const set = sets[service] as Partial<JwkSet> | undefined;
    if (set === undefined) return [];
    if (!isObject(set)) throw malformed(`a ${service} JWK set that is not an object`);
    return readKeyList(set.keys, service);
  };
  return { main: keysOf('main'), standby: keysOf('standby') };
}

/** Throws `edited` unless the time mark is a time no earlier than any held lease's `iat`. */
function checkTimes(state: SavedLicensingState): void {
  const { timeMark, offsetMs } = state;
  if (!Number.isFinite(timeMark)) {
    throw edited('its time mark is missing or not a finite number');
  }
  if (timeMark < 0 || timeMark > MAX_TIME_MS)
    throw edited(`its time mark ${timeMark} is out of range`);
  if (!Number.isFinite(offsetMs) || Math.abs(offsetMs) > MAX_CLOCK_SKEW_MS) {
    throw edited('its clock offset is missing, not a number or more than 24 h');
  }
  const { usedUntil } = state;
  if (
    usedUntil !== undefined &&
    !(Number.isFinite(usedUntil) && usedUntil >= 0 && usedUntil <= MAX_TIME_MS)
  ) {
    throw edited('its used-until time is not a time');
  }
  for (const lease of state.leases) {
    const iat = peekClaims(lease.token)?.iat;
    if (typeof iat === 'number' && iat * 1000 > timeMark) {
      throw edited(
        `its time mark is earlier than the issue time of the ${lease.item} lease it holds`,
      );
    }
  }
}

/**
 * Reads a lease store's text (a UTF-8 byte-order mark is not damage) or, from a store written for
 * an earlier SDK, the object it returns. Version 1 documents (`trustedTime`, whole JWK sets) are
 * read as version 2.
 *
 * @throws LeaseStoreInvalidError `malformed` for anything that is not a lease store document,
 *   `edited` for a time mark that is missing, not finite, out of range, or earlier than the
 *   `iat` of a lease the store holds, or a clock offset beyond 24 h.
 * @example
 * const state = readStoreDocument(await store.load());
 */
export function readStoreDocument(input: unknown): SavedLicensingState {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input.replace(/^\uFEFF/, ''));
    } catch (cause) {
      throw malformed('text that is not JSON', cause);
    }
  }
  if (!isObject(value)) throw malformed('something that is not a JSON object');
  let state: SavedLicensingState;
  if (value.version === 2) {
    const keys = isObject(value.keys) ? value.keys : undefined;
    if (!keys) throw malformed('no keys object');
    state = {
      version: 2,
      leases: readLeases(value.leases),
      keys: { main: readKeyList(keys.main, 'main'), standby: readKeyList(keys.standby, 'standby') },
      timeMark: value.timeMark as number,
      offsetMs: value.offsetMs as number,
      ...(value.usedUntil === undefined ? {} : { usedUntil: value.usedUntil as number }),
    };
  } else if (value.version === 1) {
    state = {
      version: 2,
      leases: readLeases(value.leases),
      keys: readVersion1Keys(value.jwks),
      timeMark: value.trustedTime as number,
      offsetMs: 0,
    };
  } else {
    throw malformed(
      `a document of version ${JSON.stringify(value.version) ?? 'none'}, not one this SDK reads`,
    );
  }
  checkTimes(state);
  return state;
}

/** The text a lease store keeps for `state`. */
export function writeStoreDocument(state: SavedLicensingState): string {
  return JSON.stringify(state);
}
