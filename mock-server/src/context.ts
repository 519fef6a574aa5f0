import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type Clock, createClock, dateHeaderHook } from './clock.js';
import {
  checkStoredRsaKey,
  generateRsaKey,
  loadRsaKey,
  type RsaKey,
  type StoredRsaKey,
  storedRsaKeySchema,
  storeRsaKey,
} from './crypto/rsa-key.js';
import { generateApiKey, type ResolvedOptions } from './options.js';
import { createDocumentCheck } from './store/document-check.js';
import { createStateStore, type StateStore } from './store/state-store.js';

/** Keys shared across services: the built-in ID-token issuer's and the mock main deployment's. */
export interface Keyring {
  /** Signs ID tokens at `/idp`; trusted by default for ID tokens and event read JWTs. */
  readonly issuer: RsaKey;
  /** The main deployment key: signs main leases; ServiceKeyHash hashes its public PEM. */
  readonly main: RsaKey;
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

async function loadOrCreateKey(store: StateStore, name: string): Promise<RsaKey> {
  const stored = await store.read(name, checkKey);
  if (stored) return loadRsaKey(stored);
  const key = await generateRsaKey();
  await store.write(name, storeRsaKey(key));
  return key;
}

/**
 * The management API key: `given` (then kept in the store, replacing a different stored one),
 * else the stored one, else a new one (kept). DECISIONS.md: the API key survives a restart.
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

/** Decorates the root instance with config, clock, store, keyring, API key and reset hooks. */
export const contextPlugin = fp(
  async (app: FastifyInstance, opts: { config: ResolvedOptions }) => {
    const store = await createStateStore(opts.config.dataDir);
    const [issuer, main, apiKey] = await Promise.all([
      loadOrCreateKey(store, 'issuer-key'),
      loadOrCreateKey(store, 'main-key'),
      loadOrCreateApiKey(store, opts.config.apiKey, app.log),
    ]);
    app.decorate('config', opts.config);
    const clock = createClock(opts.config.now);
    app.decorate('clock', clock);
    // The services show their clock in `Date` too, so a shifted clock is one clock to a client.
    if (opts.config.now !== undefined) app.addHook('onSend', dateHeaderHook(clock));
    else app.addHook('onSend', dateHeaderHook(clock, { onlyWhenOffset: true }));
    app.decorate('store', store);
    app.decorate('keyring', { issuer, main });
    app.decorate('apiKey', apiKey);
    app.decorate('resets', new Map<string, ResetHook>());
  },
  { name: 'context', fastify: '5.x' },
);
