// The lease store's document (DECISIONS.md "Lease trust (third wave)", "Damaged or edited
// stores"): anything that is not a document is `malformed`, a time mark or offset that cannot be
// true is `edited`, a byte-order mark is no damage, and version 1 documents still read.
import { describe, expect, it } from 'vitest';
import { LeaseStoreInvalidError } from '../errors.js';
import type { SavedLicensingState } from '../types.js';
import { EMPTY_DOCUMENT, readStoreDocument, writeStoreDocument } from './store-document.js';
import { MAX_CLOCK_SKEW_MS, MAX_TIME_MS } from './trusted-clock.js';

const T0 = Date.UTC(2030, 0, 1);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A token of the right form (its signature is never checked here). */
const tokenWith = (claims: Record<string, unknown>) =>
  `${b64({ alg: 'RS256', kid: 'k' })}.${b64(claims)}.${b64('signature')}`;
const LEASE_TOKEN = tokenWith({
  ItemA: true,
  jti: 'J1',
  lic: 'L1',
  iat: T0 / 1000,
  exp: T0 / 1000 + 3600,
});
const JWK = { kty: 'RSA', kid: 'k', n: 'AQAB', e: 'AQAB' };

function documentWith(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 2,
    leases: [{ item: 'ItemA', token: LEASE_TOKEN, servedBy: 'main' }],
    keys: { main: [JWK], standby: [] },
    timeMark: T0,
    offsetMs: 1_500,
    ...overrides,
  };
}

function refusal(input: unknown): LeaseStoreInvalidError {
  try {
    readStoreDocument(input);
  } catch (error) {
    expect(error).toBeInstanceOf(LeaseStoreInvalidError);
    return error as LeaseStoreInvalidError;
  }
  throw new Error('expected readStoreDocument to throw');
}

function expectMalformed(input: unknown, message: RegExp) {
  const error = refusal(input);
  expect(error.code).toBe('LEASE_STORE_INVALID');
  expect(error.reason).toBe('malformed');
  expect(error.message).toMatch(message);
  expect(error.message).toMatch(/replaced at the next successful checkout/);
  return error;
}

function expectEdited(input: unknown, message: RegExp) {
  const error = refusal(input);
  expect(error.reason).toBe('edited');
  expect(error.message).toMatch(message);
  expect(error.message).toMatch(/^The lease store was edited: .*Seal the store/);
  return error;
}

describe('EMPTY_DOCUMENT', () => {
  it('is a version 2 document that holds nothing, frozen', () => {
    expect(EMPTY_DOCUMENT).toEqual({
      version: 2,
      leases: [],
      keys: { main: [], standby: [] },
      timeMark: 0,
      offsetMs: 0,
    });
    expect(Object.isFrozen(EMPTY_DOCUMENT)).toBe(true);
    expect(readStoreDocument(writeStoreDocument(EMPTY_DOCUMENT))).toEqual(EMPTY_DOCUMENT);
  });
});

describe('readStoreDocument', () => {
  it('reads a version 2 document as text or as the object a store returns', () => {
    const document = documentWith();
    expect(readStoreDocument(JSON.stringify(document))).toEqual(document);
    expect(readStoreDocument(document)).toEqual(document);
  });

  it('round-trips what writeStoreDocument writes', () => {
    const state = documentWith() as unknown as SavedLicensingState;
    const text = writeStoreDocument(state);
    expect(JSON.parse(text)).toEqual(state);
    expect(readStoreDocument(text)).toEqual(state);
  });

  it('reads a document behind a UTF-8 byte-order mark, and only strips a leading one', () => {
    const document = documentWith();
    expect(readStoreDocument(`\uFEFF${JSON.stringify(document)}`)).toEqual(document);
    const inside = documentWith({
      leases: [{ item: 'Item\uFEFFA', token: LEASE_TOKEN, servedBy: 'main' }],
    });
    expect(readStoreDocument(JSON.stringify(inside)).leases[0]!.item).toBe('Item\uFEFFA');
  });

  it('keeps only item, token and servedBy of each lease, and reads absent key lists as empty', () => {
    const state = readStoreDocument(
      documentWith({
        leases: [{ item: 'ItemA', token: LEASE_TOKEN, servedBy: 'standby', extra: 1 }],
        keys: {},
      }),
    );
    expect(state.leases).toEqual([{ item: 'ItemA', token: LEASE_TOKEN, servedBy: 'standby' }]);
    expect(state.keys).toEqual({ main: [], standby: [] });
  });

  it('calls text that is not JSON malformed, with the parse error as cause', () => {
    for (const text of ['', '{', 'not json', '\uFEFF']) {
      const error = expectMalformed(text, /text that is not JSON/);
      expect(error.cause).toBeInstanceOf(SyntaxError);
    }
  });

  it('calls anything but a JSON object malformed', () => {
    for (const value of [null, 42, 'null', '[]', '"text"', [], true]) {
      const error = expectMalformed(value, /something that is not a JSON object/);
      expect(error.cause).toBeUndefined();
    }
  });

  it('calls a document of an unknown version malformed, saying which', () => {
    expectMalformed({ ...documentWith(), version: 3 }, /a document of version 3, not one/);
    expectMalformed({ ...documentWith(), version: '2' }, /a document of version "2", not one/);
    const { version: _, ...unversioned } = documentWith();
    expectMalformed(unversioned, /a document of version none, not one/);
  });

  it('calls a version 2 document without a keys object malformed', () => {
    for (const keys of [undefined, null, [], 'keys']) {
      expectMalformed(documentWith({ keys }), /no keys object/);
    }
  });

  it('calls a key list that is not an array of JWKs malformed, naming the service', () => {
    expectMalformed(documentWith({ keys: { main: {}, standby: [] } }), /a main key list/);
    expectMalformed(
      documentWith({ keys: { main: [], standby: [JWK, null] } }),
      /a standby key list/,
    );
    expectMalformed(documentWith({ keys: { main: [[]], standby: [] } }), /a main key list/);
    expectMalformed(documentWith({ keys: { main: 'x' } }), /a main key list that is not an array/);
  });

  it('calls a leases member that is not an array malformed', () => {
    for (const leases of [undefined, null, {}, 'ItemA']) {
      expectMalformed(documentWith({ leases }), /no leases array/);
    }
  });

  it('calls a lease entry that is not { item, token, servedBy } malformed, naming its index', () => {
    const good = { item: 'ItemA', token: LEASE_TOKEN, servedBy: 'main' };
    for (const entry of [
      null,
      [],
      'entry',
      { ...good, item: undefined },
      { ...good, item: '' },
      { ...good, item: 7 },
      { ...good, token: undefined },
      { ...good, token: 7 },
      { ...good, servedBy: undefined },
      { ...good, servedBy: 'backup' },
    ]) {
      expectMalformed(documentWith({ leases: [good, entry] }), /a lease entry \(leases\[1\]\)/);
    }
  });

  it('reads a version 1 document: trustedTime as the mark, whole JWK sets as key lists, no offset', () => {
    const state = readStoreDocument({
      version: 1,
      leases: [{ item: 'ItemA', token: LEASE_TOKEN, servedBy: 'main' }],
      jwks: { main: { keys: [JWK] }, standby: { keys: [] } },
      trustedTime: T0,
    });
    expect(state).toEqual({
      version: 2,
      leases: [{ item: 'ItemA', token: LEASE_TOKEN, servedBy: 'main' }],
      keys: { main: [JWK], standby: [] },
      timeMark: T0,
      offsetMs: 0,
    });
    const bare = readStoreDocument({ version: 1, leases: [], trustedTime: 0 });
    expect(bare.keys).toEqual({ main: [], standby: [] });
    const oneSet = readStoreDocument({
      version: 1,
      leases: [],
      jwks: { standby: { keys: [JWK] } },
      trustedTime: 0,
    });
    expect(oneSet.keys).toEqual({ main: [], standby: [JWK] });
    const noKeys = readStoreDocument({
      version: 1,
      leases: [],
      jwks: { main: {} },
      trustedTime: 0,
    });
    expect(noKeys.keys).toEqual({ main: [], standby: [] });
  });

  it('calls a version 1 document with malformed JWK sets malformed', () => {
    const v1 = (jwks: unknown) => ({ version: 1, leases: [], jwks, trustedTime: T0 });
    expectMalformed(v1([]), /a jwks member that is not an object/);
    expectMalformed(v1(null), /a jwks member that is not an object/);
    expectMalformed(v1({ main: [] }), /a main JWK set that is not an object/);
    expectMalformed(v1({ standby: 'set' }), /a standby JWK set that is not an object/);
    expectMalformed(v1({ main: { keys: {} } }), /a main key list/);
    expectMalformed({ version: 1, jwks: {}, trustedTime: T0 }, /no leases array/);
  });

  it('calls a missing, non-numeric or non-finite time mark edited', () => {
    for (const timeMark of [undefined, null, '1', Number.NaN]) {
      expectEdited(documentWith({ timeMark }), /time mark is missing or not a finite number/);
    }
    // 1e999 is Infinity once parsed: the text an edited file holds.
    const text = JSON.stringify(documentWith({ timeMark: 0 })).replace(
      '"timeMark":0',
      '"timeMark":1e999',
    );
    expectEdited(text, /time mark is missing or not a finite number/);
    expectEdited({ version: 1, leases: [], trustedTime: '5' }, /time mark is missing/);
  });

  it('calls a time mark out of range edited, and takes both ends of the range', () => {
    expectEdited(documentWith({ timeMark: -1 }), /time mark -1 is out of range/);
    expectEdited(documentWith({ timeMark: MAX_TIME_MS + 1 }), /is out of range/);
    expectEdited(documentWith({ timeMark: 9e15 }), /time mark 9000000000000000 is out of range/);
    expect(readStoreDocument(documentWith({ leases: [], timeMark: 0 })).timeMark).toBe(0);
    expect(readStoreDocument(documentWith({ timeMark: MAX_TIME_MS })).timeMark).toBe(MAX_TIME_MS);
  });

  it('calls a clock offset that is missing, not finite or beyond 24 h edited', () => {
    for (const offsetMs of [
      undefined,
      '0',
      Number.NaN,
      MAX_CLOCK_SKEW_MS + 1,
      -MAX_CLOCK_SKEW_MS - 1,
    ]) {
      expectEdited(
        documentWith({ offsetMs }),
        /clock offset is missing, not a number or more than 24 h/,
      );
    }
    for (const offsetMs of [MAX_CLOCK_SKEW_MS, -MAX_CLOCK_SKEW_MS, 0]) {
      expect(readStoreDocument(documentWith({ offsetMs })).offsetMs).toBe(offsetMs);
    }
  });

  it('calls a used-until time that is not a time edited, takes both ends of the range, and reads none when absent', () => {
    for (const usedUntil of [
      null,
      '1',
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -1,
      MAX_TIME_MS + 1,
    ]) {
      expectEdited(documentWith({ usedUntil }), /its used-until time is not a time/);
    }
    for (const usedUntil of [0, T0 + 60_000, MAX_TIME_MS]) {
      expect(readStoreDocument(documentWith({ usedUntil })).usedUntil).toBe(usedUntil);
    }
    expect('usedUntil' in readStoreDocument(documentWith())).toBe(false);
  });

  it('calls a time mark earlier than the iat of a lease it holds edited, naming the item', () => {
    expectEdited(
      documentWith({ timeMark: T0 - 1 }),
      /time mark is earlier than the issue time of the ItemA lease/,
    );
    // Equal is fine: the mark covers every iat.
    expect(readStoreDocument(documentWith({ timeMark: T0 })).timeMark).toBe(T0);
    // Only the lease that is ahead counts, wherever it is in the list.
    const later = tokenWith({
      ItemB: true,
      jti: 'J2',
      lic: 'L1',
      iat: T0 / 1000 + 60,
      exp: T0 / 1000 + 3600,
    });
    expectEdited(
      documentWith({
        leases: [
          { item: 'ItemA', token: LEASE_TOKEN, servedBy: 'main' },
          { item: 'ItemB', token: later, servedBy: 'standby' },
        ],
        timeMark: T0 + 59_999,
      }),
      /the ItemB lease/,
    );
  });

  it('leaves a lease whose iat it cannot read to the verification of that lease', () => {
    const unreadable = { item: 'ItemA', token: 'not a token', servedBy: 'main' };
    const noIat = {
      item: 'ItemA',
      token: tokenWith({ ItemA: true, iat: String(T0) }),
      servedBy: 'main',
    };
    const state = readStoreDocument(documentWith({ leases: [unreadable, noIat], timeMark: 0 }));
    expect(state.leases).toHaveLength(2);
  });
});
