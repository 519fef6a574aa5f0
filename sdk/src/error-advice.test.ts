// Errors an app can act on (DECISIONS.md "App integration (third wave)"): every LicensingError
// message ends with what to do. This walks the error-producing paths of the SDK that a test can
// reach without a real outage (arguments, lease tokens, signing keys, lease stores, the clock, the
// ID-token provider, main-only calls, a dormant standby, the event client) and
// checks that each message's LAST SENTENCE starts with an imperative verb from a closed list.
// Messages built in transport/ and failover/combine-failures.ts are another stream's and are not
// walked here.
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAs } from '../test/helpers/fake-licensing.js';
import {
  authzHandler,
  enabledHandler,
  MAIN,
  makeClient,
  NOW,
  seededStore,
} from '../test/helpers/licensing-test-setup.js';
import { hmacSealing } from '../test/helpers/sealing.js';
import { createTestPki, createTestRoot, createTestSigningKey } from '../test/helpers/test-pki.js';
import { createIdTokenSource } from './auth/id-token-source.js';
import { computeServiceKeyHash } from './auth/service-key-hash.js';
import { isLicensingError, type LicensingError } from './errors.js';
import { createEventClient } from './events/create-event-client.js';
import { parseTimestamp, timestampFromDate } from './events/timestamp.js';
import { createLeaseVerifier } from './lease/lease-verifier.js';
import { createMemoryLeaseStore } from './lease/memory-lease-store.js';
import { parseTrustedRoots } from './lease/trusted-roots.js';

/** Verbs an instruction to an app developer or operator starts with. */
const IMPERATIVES = new Set([
  'Check',
  'Set',
  'Pass',
  'Embed',
  'Fix',
  'Rename',
  'Split',
  'Seal',
  'Create',
  'Run',
  'Raise',
  'Ask',
  'Sign',
]);

/** The last sentence: after the last period (or `?`/`!`) that a space and a capital follow. */
function lastSentence(message: string): string {
  const parts = message.split(/(?<=[.!?])\s+(?=[A-Z])/);
  return parts[parts.length - 1]!;
}

/** True when the message's last sentence is an instruction (starts with an imperative verb). */
function endsWithInstruction(message: string): boolean {
  const [first] = lastSentence(message).split(/\s/);
  return IMPERATIVES.has(first ?? '');
}

/** Every message seen, by where it came from, for the report at the end. */
const seen: Array<{ path: string; code: string; message: string }> = [];

async function errorOf(path: string, run: () => unknown): Promise<LicensingError> {
  let error: unknown;
  try {
    await run();
  } catch (caught) {
    error = caught;
  }
  if (!isLicensingError(error)) {
    throw new Error(`${path}: expected a LicensingError, got ${String(error)}`);
  }
  seen.push({ path, code: error.code, message: error.message });
  return error;
}

async function expectAdvice(path: string, run: () => unknown, code?: string) {
  const error = await errorOf(path, run);
  if (code) expect(error.code, path).toBe(code);
  expect(
    endsWithInstruction(error.message),
    `${path}: "${error.message}" does not end with an instruction`,
  ).toBe(true);
  return error;
}

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('the check itself', () => {
  it('tells an instruction from a statement', () => {
    expect(endsWithInstruction('the token signature does not verify')).toBe(false);
    expect(endsWithInstruction('items must be a non-empty array')).toBe(false);
    expect(
      endsWithInstruction(
        'Could not reach the main licensing service (http://127.0.0.1:1/main): connection refused',
      ),
    ).toBe(false);
    // An instruction earlier on is not enough: the last sentence decides.
    expect(endsWithInstruction('Check the clock. The lease expired at 2030-01-01.')).toBe(false);
    expect(
      endsWithInstruction('The lease expired at 2030-01-01T00:00:00.000Z. Check the clock.'),
    ).toBe(true);
    expect(
      endsWithInstruction(
        'the key cannot be trusted. Embed the root: npx standby-licensing embed-root --jwks-url http://a/b.json',
      ),
    ).toBe(true);
  });
});

describe('licensing client arguments and states', () => {
  it('checkout, renew, release, verify, has, subscribe, checkoutProducts, closed', async () => {
    const { client } = makeClient();
    await expectAdvice('checkout([])', () => client.checkout([]), 'INVALID_ARGUMENT');
    await expectAdvice('checkout([""])', () => client.checkout(['']), 'INVALID_ARGUMENT');
    await expectAdvice('checkout(reserved)', () => client.checkout(['hw']), 'INVALID_ARGUMENT');
    await expectAdvice('checkout(twice)', () => client.checkout(['A', 'A']), 'INVALID_ARGUMENT');
    await expectAdvice(
      'checkout(licenseId)',
      () => client.checkout([{ item: 'A', licenseId: '' }]),
      'INVALID_ARGUMENT',
    );
    await expectAdvice('renew(x)', () => client.renew({} as never), 'INVALID_ARGUMENT');
    await expectAdvice('release(x)', () => client.release([{}] as never), 'INVALID_ARGUMENT');
    await expectAdvice('verify(42)', () => client.verify(42 as never), 'INVALID_ARGUMENT');
    await expectAdvice('has("")', () => client.has(''), 'INVALID_ARGUMENT');
    await expectAdvice('subscribe(x)', () => client.subscribe(1 as never), 'INVALID_ARGUMENT');
    await expectAdvice(
      'checkoutProducts(service key hash)',
      () => client.checkoutProducts([{ productName: 'P', qty: 1, qtyDimension: 'SEATS' }]),
      'INVALID_ARGUMENT',
    );
    await client.close();
    await expectAdvice('checkout after close', () => client.checkout(['A']), 'CLIENT_CLOSED');
  });

  it('checkoutProducts arguments, and main down on a main-only call', async () => {
    server.use(http.post(`${MAIN}/licensing/actions/checkout`, () => HttpResponse.error()));
    const { client } = makeClient(
      { failover: { mainAttempts: 1 } },
      {
        idTokens: {
          expiresAt: NOW,
          get: async () => ({ token: 'id', inGrace: false, expiresAt: NOW + 3_600_000 }),
        },
      },
    );
    for (const [path, products] of [
      ['products []', []],
      ['products name', [{ productName: '', qty: 1, qtyDimension: 'SEATS' }]],
      ['products qty', [{ productName: 'P', qty: 0, qtyDimension: 'SEATS' }]],
      ['products dimension', [{ productName: 'P', qty: 1, qtyDimension: 'BOXES' }]],
    ] as const) {
      await expectAdvice(
        path,
        () => client.checkoutProducts(products as never),
        'INVALID_ARGUMENT',
      );
    }
    await expectAdvice(
      'checkoutProducts, main down',
      () => client.checkoutProducts([{ productName: 'P', qty: 1, qtyDimension: 'SEATS' }]),
      'SERVICE_UNAVAILABLE',
    );
    await client.close();
  });

  it('a denied renewal and a dormant standby while main is down', async () => {
    server.use(authzHandler('main', ['deny'], undefined, ['ItemA']).handler);
    const { client } = makeClient();
    server.use(authzHandler('main', ['ok']).handler);
    const { leases } = await client.checkout(['ItemA']);
    server.use(authzHandler('main', ['deny'], undefined, ['ItemA']).handler);
    await expectAdvice('renew denied', () => client.renew(leases[0]!), 'LICENSE_DENIED');
    await client.close();

    server.use(authzHandler('main', [503]).handler, enabledHandler(() => false).handler);
    const b = makeClient({ failover: { strategy: 'B', mainAttempts: 1 } });
    await expectAdvice(
      'standby not enabled',
      () => b.client.checkout(['ItemA']),
      'STANDBY_DORMANT',
    );
    await b.client.close();
  });
});

describe('lease tokens and signing keys', () => {
  it('every refusal of a token or a key says what to check', async () => {
    const T0 = Date.UTC(2030, 0, 1);
    const pki = await createTestPki({ now: () => T0 });
    const foreignRoot = await createTestRoot({ now: () => T0 });
    const foreign = await createTestSigningKey(foreignRoot, { now: () => T0, kid: 'foreign' });
    const other = await pki.createSigningKey({ kid: 'other' });
    const third = await pki.createSigningKey({ kid: 'third' });
    const expiredKey = await pki.createSigningKey({
      kid: 'expired-cert',
      keys: pki.signingKey.keys,
      notBefore: new Date(T0 - 10 * 86_400_000),
      notAfter: new Date(T0 - 86_400_000),
    });
    const jwk = pki.signingKey.jwk;
    const keys = [
      jwk,
      foreign.jwk,
      expiredKey.jwk,
      { ...jwk, kid: 'ec', kty: 'EC' },
      // Each bad JWK on key material of its own: checks are shared by key material.
      { ...other.jwk, kid: 'hs', alg: 'HS256' },
      { ...third.jwk, kid: 'enc', use: 'enc' },
      { kid: 'no-n', kty: 'RSA', x5c: jwk.x5c },
      { ...jwk, kid: 'mixed', x5c: other.jwk.x5c },
    ];
    const verifier = (hardwareId?: string) =>
      createLeaseVerifier({
        roots: [pki.trustedRoot],
        loadJwks: async () => ({ keys }),
        now: () => T0,
        ...(hardwareId ? { hardwareId } : {}),
      });
    const lease = { ItemA: true, lic: 'L1', jti: 'J1' };
    const good = await pki.signLease(lease);
    const [h, p, s] = good.split('.') as [string, string, string];
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: Array<[string, () => Promise<string> | string, string?]> = [
      ['not a string', () => 42 as never],
      ['two parts', () => 'a.b'],
      ['padding', () => `${h}=.${p}.${s}`],
      ['alg none', () => pki.signLease(lease, { alg: 'none' })],
      ['no kid', () => pki.signLease(lease, { kid: null })],
      ['crit', () => `${b64({ alg: 'RS256', kid: pki.kid, crit: ['x'] })}.${p}.${s}`],
      ['unknown kid', () => pki.signLease(lease, { kid: 'nope' })],
      ['foreign chain', () => foreign.sign(lease)],
      ['certificate expired', () => expiredKey.sign(lease)],
      ['EC key', () => pki.signLease(lease, { kid: 'ec' })],
      ['HS256 key', () => pki.signLease(lease, { kid: 'hs' })],
      ['enc key', () => pki.signLease(lease, { kid: 'enc' })],
      ['no n', () => pki.signLease(lease, { kid: 'no-n' })],
      ['modulus', () => pki.signLease(lease, { kid: 'mixed' })],
      ['signature', () => `${h}.${b64({ ...lease, ItemB: true, iat: 1, exp: 2 })}.${s}`],
      ['no exp', () => pki.signLease({ ...lease, exp: 'soon' })],
      ['nbf text', () => pki.signLease({ ...lease, nbf: 'x' })],
      ['expired', () => pki.signLease({ ...lease, iat: T0 / 1000 - 9e4, exp: T0 / 1000 - 3600 })],
      ['nbf ahead', () => pki.signLease({ ...lease, nbf: T0 / 1000 + 3600 })],
      ['iat ahead', () => pki.signLease({ ...lease, iat: T0 / 1000 + 3600 })],
      ['other item', () => pki.signLease({ ...lease, ItemA: undefined, ItemB: true })],
      ['release answer', () => pki.signLease({ ItemA: true })],
      ['other device', () => pki.signLease({ ...lease, hw: 'H2' }), 'H1'],
    ];
    for (const [path, make, hardwareId] of cases) {
      const token = await make();
      await expectAdvice(
        `token: ${path}`,
        () => verifier(hardwareId).verify(token, { service: 'standby', item: 'ItemA' }),
        'TOKEN_INVALID',
      );
    }
    const two = await pki.signLease({ ...lease, ItemB: true });
    await expectAdvice('two items', () => verifier().verify(two, { service: 'main' }));
  });

  it('embedded roots and the service key hash', async () => {
    await expectAdvice('no roots', () => parseTrustedRoots([]), 'INVALID_ARGUMENT');
    await expectAdvice('bad root', () => parseTrustedRoots([{ pem: 'x' }]), 'INVALID_ARGUMENT');
    await expectAdvice('hash of 42', () => computeServiceKeyHash(42 as never), 'INVALID_ARGUMENT');
    await expectAdvice('hash of junk', () => computeServiceKeyHash('junk'), 'INVALID_ARGUMENT');
  });
});

describe('lease stores and the clock', () => {
  const restoreFrom = (store: ReturnType<typeof createMemoryLeaseStore>, now = NOW) =>
    makeClient({ leaseStore: store, now: () => now }).client.restore();

  it('malformed, edited, sealed, unreadable, rolled back', async () => {
    const text = (value: unknown) => {
      const store = createMemoryLeaseStore();
      void store.save(typeof value === 'string' ? value : JSON.stringify(value));
      return store;
    };
    await expectAdvice('store: not JSON', () => restoreFrom(text('{')), 'LEASE_STORE_INVALID');
    await expectAdvice(
      'store: no mark',
      () =>
        restoreFrom(text({ version: 2, leases: [], keys: { main: [], standby: [] }, offsetMs: 0 })),
      'LEASE_STORE_INVALID',
    );
    const sealing = hmacSealing('one key');
    const sealed = createFileLeaseStore(
      `${process.env.TMPDIR ?? '/tmp'}/advice-${process.pid}.json`,
      sealing,
    );
    await sealed.save('{}');
    const opened = createFileLeaseStore(
      `${process.env.TMPDIR ?? '/tmp'}/advice-${process.pid}.json`,
      hmacSealing('another key'),
    );
    await expectAdvice('store: sealed', () => restoreFrom(opened as never), 'LEASE_STORE_INVALID');
    const odd = createFileLeaseStore(`${process.env.TMPDIR ?? '/tmp'}/advice-${process.pid}.json`, {
      seal: (t) => t,
      unseal: () => 42 as never,
    });
    await expectAdvice(
      'store: unseal type',
      () => restoreFrom(odd as never),
      'LEASE_STORE_INVALID',
    );
    await sealed.clear();
    const unreadable = {
      load: async () => {
        throw new Error('EIO');
      },
      save: async () => undefined,
      clear: async () => undefined,
    };
    await expectAdvice(
      'store: unreadable',
      () => restoreFrom(unreadable as never),
      'LEASE_STORE_INVALID',
    );

    server.use(authzHandler('main', ['ok']).handler);
    const store = seededStore();
    const { client } = makeClient({ leaseStore: store });
    await client.checkout(['ItemA']);
    await expectAdvice(
      'clock set back',
      () => restoreFrom(store, NOW - 3_600_000),
      'CLOCK_ROLLBACK',
    );
  });
});

describe('the ID-token provider', () => {
  const source = (provider: () => string | Promise<string>, extra = {}) =>
    createIdTokenSource({ provider, now: () => NOW, providerTimeoutMs: 20, ...extra });
  const jwt = (exp: number) => signAs('main', { sub: 'u', exp: exp / 1000 });

  it('throws, returns junk, is too slow, returns an expired token, nothing kept', async () => {
    await expectAdvice(
      'provider throws',
      () =>
        source(() => {
          throw new Error('offline');
        }).get('main'),
      'SERVICE_UNAVAILABLE',
    );
    await expectAdvice('provider junk', () => source(() => 'junk').get('main'), 'UNAUTHORIZED');
    await expectAdvice(
      'provider slow',
      () => source(() => new Promise<string>(() => {})).get('main'),
      'SERVICE_UNAVAILABLE',
    );
    await expectAdvice(
      'provider expired',
      () => source(() => jwt(NOW - 1000)).get('main', { forceRefresh: true }),
      'UNAUTHORIZED',
    );
    const old = createIdTokenSource({
      provider: () => {
        throw new Error('offline');
      },
      now: () => NOW + 2 * 86_400_000,
      store: {
        load: async () => jwt(NOW),
        save: async () => undefined,
        clear: async () => undefined,
      },
    });
    await expectAdvice('grace over', () => old.get('standby'), 'ID_TOKEN_EXPIRED');
    await expectAdvice('after 401, provider throws', () => old.get('main', { forceRefresh: true }));
  });
});

describe('the event client', () => {
  it('arguments of read, collect, put, putAll and the timestamps', async () => {
    const events = createEventClient({
      eventUrl: 'http://events.test',
      auth: { token: () => 't' },
    });
    const first = (iterable: AsyncIterable<unknown>) => iterable[Symbol.asyncIterator]().next();
    await expectAdvice('feed {}', () => first(events.read({} as never)), 'INVALID_ARGUMENT');
    await expectAdvice('feed a/b', () => first(events.read('a/b')), 'INVALID_ARGUMENT');
    await expectAdvice('feed ""', () => first(events.read({ source: '' })), 'INVALID_ARGUMENT');
    await expectAdvice(
      'order',
      () => first(events.read('s', { order: 'random' as never })),
      'INVALID_ARGUMENT',
    );
    await expectAdvice('collect', () => events.collect('s', {} as never), 'INVALID_ARGUMENT');
    await expectAdvice('put []', () => events.put([]), 'INVALID_ARGUMENT');
    await expectAdvice('put no signer', () => events.put([{ eventType: 'x', eventSourceId: 's' }]));
    await expectAdvice('put eventType', () => events.put([{ eventSourceId: 's' } as never]));
    await expectAdvice('put bigint', () =>
      events.put([{ eventType: 'x', eventSourceId: 's', data: 1n } as never], {
        signer: { privateKey: 'x' },
      } as never),
    );
    await expectAdvice('putAll', () => events.putAll([], { onBatchWritten: 1 } as never));
    await expectAdvice('timestamp', () => parseTimestamp('abc'), 'INVALID_ARGUMENT');
    await expectAdvice('date', () => timestampFromDate(new Date(Number.NaN)), 'INVALID_ARGUMENT');
  });
});

describe('what was walked', () => {
  it('covers every code an app can meet here', () => {
    const codes = new Set(seen.map((entry) => entry.code));
    for (const code of [
      'INVALID_ARGUMENT',
      'CLIENT_CLOSED',
      'TOKEN_INVALID',
      'LEASE_STORE_INVALID',
      'CLOCK_ROLLBACK',
      'UNAUTHORIZED',
      'ID_TOKEN_EXPIRED',
      'SERVICE_UNAVAILABLE',
      'LICENSE_DENIED',
      'STANDBY_DORMANT',
    ]) {
      expect(codes, code).toContain(code);
    }
    expect(seen.length).toBeGreaterThan(60);
    // PRINT_ERROR_MESSAGES=1 lists them, e.g. to review their wording.
    if (process.env.PRINT_ERROR_MESSAGES === '1') {
      for (const { path, code, message } of seen) console.log(`${code} [${path}] ${message}`);
    }
  });
});
