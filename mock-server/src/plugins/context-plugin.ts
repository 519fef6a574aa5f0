import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { generateApiKey, type ResolvedOptions } from '../config/options.js';
import {
  createDeferredKeys,
  type Deferred,
  type DeferredKeys,
  defer,
  made,
} from '../crypto/deferred-keys.js';
import {
  checkStoredRsaKey,
  generateRsaKey,
  loadRsaKey,
  type RsaKey,
  type StoredRsaKey,
  storedRsaKeySchema,
  storeRsaKey,
} from '../crypto/rsa-key.js';
import { createDocumentCheck } from '../store/document-check.js';
import { createStateStore, type StateStore } from '../store/state-store.js';
import { type Clock, createClock, dateHeaderHook } from './clock.js';

/** Names of the keys in the {@link Keyring}. */
export type KeyName = 'issuer' | 'main';

/**
 * Keys shared across services: the built-in ID-token issuer's and the mock main deployment's.
 * A key kept in the data dir is loaded (and checked) before the server starts; a new one is made
 * on first use, or right after the server listens ({@link DeferredKeys}).
 */
export interface Keyring {
  /**
   * Signs ID tokens at `/idp`; trusted by default for ID tokens and event read JWTs. Throws
   * until made: services use `get('issuer')`; `buildApp` resolves with it made.
   */
  readonly issuer: RsaKey;
  /**
   * The main deployment key: signs main leases; ServiceKeyHash hashes its public PEM. Throws
   * until made, like `issuer`.
   */
  readonly main: RsaKey;
  /** The key `name`, made on the first call. */
  get(name: KeyName): Promise<RsaKey>;
  /** The key `name` if made (or loaded from the data dir), else undefined. */
  peek(name: KeyName): RsaKey | undefined;
}

/** Runs when the admin API resets state; each service registers its own under its name. */
export type ResetHook = () => Promise<void> | void;

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolved server options. */
    config: ResolvedOptions;
    /** The server clock (admin can offset it). */
    clock: Clock;
    /** Keys, state and API key; on disk with `--data-dir`. */
    store: StateStore;
    /** Shared keys (issuer, main). */
    keyring: Keyring;
    /** Keys and certificates made on demand, or all at once right after listening. */
    deferredKeys: DeferredKeys;
    /** The standby management API key in force. */
    apiKey: string;
    /** Reset hooks by service name (`standby`, `main`, `events`, ...). */
    resets: Map<string, ResetHook>;
  }
}

const checkKey = createDocumentCheck<StoredRsaKey>(storedRsaKeySchema, (stored) =>
  checkStoredRsaKey(stored),
);

const checkApiKey = createDocumentCheck<{ apiKey: string }>({
  type: 'object',
  required: ['apiKey'],
  properties: { apiKey: { type: 'string', minLength: 1 } },
});

/**
 * The key stored as `name` (read and checked now: a damaged file stops the start), or a new one
 * made on first use and stored before it is handed out.
 */
async function loadOrDeferKey(store: StateStore, name: string): Promise<Deferred<RsaKey>> {
  const stored = await store.read(name, checkKey);
  if (stored) return made(loadRsaKey(stored));
  return defer(async () => {
    const key = await generateRsaKey();
    await store.write(name, storeRsaKey(key));
    return key;
  });
}

function createKeyring(keys: Record<KeyName, Deferred<RsaKey>>): Keyring {
  const madeKey = (name: KeyName): RsaKey => {
    const key = keys[name].value;
    if (key === undefined) {
      throw new Error(`The ${name} key is not made yet: await app.keyring.get('${name}')`);
    }
    return key;
  };
  return {
    get issuer() {
      return madeKey('issuer');
    },
    get main() {
      return madeKey('main');
    },
    get: (name) => keys[name].get(),
    peek: (name) => keys[name].value,
  };
}

/**
 * The management API key: `given` (then kept in the store, replacing a different stored one),
 * else the stored one, else a new one (kept). The API key survives a restart (docs/mock-server.md).
 */
async function loadOrCreateApiKey(
  store: StateStore,
  given: string | undefined,
  log: FastifyBaseLogger,
): Promise<string> {
  const stored = await store.read('api-key', checkApiKey);
  if (given === undefined) {
    if (stored) return stored.apiKey;
    const apiKey = generateApiKey();
    await store.write('api-key', { apiKey });
    return apiKey;
  }
  if (stored?.apiKey !== given) {
    await store.write('api-key', { apiKey: given });
    if (stored) log.info('the given API key replaces the one kept in the data dir');
  }
  return given;
}

/**
 * Decorates the root instance with config, clock, store, keyring, deferred keys, API key and reset
 * hooks. Stored keys are loaded now; missing ones are deferred (the issuer's first, as nearly
 * every drill starts with an ID token). Closing waits for a key being made to be stored.
 */
export const contextPlugin = fp(
  async (app: FastifyInstance, opts: { config: ResolvedOptions }) => {
    const store = await createStateStore(opts.config.dataDir);
    const [issuer, main, apiKey] = await Promise.all([
      loadOrDeferKey(store, 'issuer-key'),
      loadOrDeferKey(store, 'main-key'),
      loadOrCreateApiKey(store, opts.config.apiKey, app.log),
    ]);
    const deferredKeys = createDeferredKeys();
    deferredKeys.add(issuer);
    deferredKeys.add(main);
    app.decorate('config', opts.config);
    const clock = createClock(opts.config.now);
    app.decorate('clock', clock);
    // The services show their clock in `Date` too, so a shifted clock is one clock to a client.
    if (opts.config.now !== undefined) app.addHook('onSend', dateHeaderHook(clock));
    else app.addHook('onSend', dateHeaderHook(clock, { onlyWhenOffset: true }));
    app.decorate('store', store);
    app.decorate('keyring', createKeyring({ issuer, main }));
    app.decorate('deferredKeys', deferredKeys);
    app.decorate('apiKey', apiKey);
    app.decorate('resets', new Map<string, ResetHook>());
    app.addHook('onClose', () => deferredKeys.settled());
  },
  { name: 'context', fastify: '5.x' },
);
