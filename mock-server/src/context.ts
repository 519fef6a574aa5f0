import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type Clock, createClock } from './clock.js';
import {
  generateRsaKey,
  loadRsaKey,
  type RsaKey,
  type StoredRsaKey,
  storeRsaKey,
} from './crypto/rsa-key.js';
import { generateApiKey, type ResolvedOptions } from './options.js';
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

async function loadOrCreateKey(store: StateStore, name: string): Promise<RsaKey> {
  const stored = await store.read<StoredRsaKey>(name);
  if (stored) return loadRsaKey(stored);
  const key = await generateRsaKey();
  await store.write(name, storeRsaKey(key));
  return key;
}

async function loadOrCreateApiKey(store: StateStore, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  const stored = await store.read<{ apiKey: string }>('api-key');
  if (stored) return stored.apiKey;
  const apiKey = generateApiKey();
  await store.write('api-key', { apiKey });
  return apiKey;
}

/** Decorates the root instance with config, clock, store, keyring, API key and reset hooks. */
export const contextPlugin = fp(
  async (app: FastifyInstance, opts: { config: ResolvedOptions }) => {
    const store = await createStateStore(opts.config.dataDir);
    const [issuer, main, apiKey] = await Promise.all([
      loadOrCreateKey(store, 'issuer-key'),
      loadOrCreateKey(store, 'main-key'),
      loadOrCreateApiKey(store, opts.config.apiKey),
    ]);
    app.decorate('config', opts.config);
    app.decorate('clock', createClock(opts.config.now));
    app.decorate('store', store);
    app.decorate('keyring', { issuer, main });
    app.decorate('apiKey', apiKey);
    app.decorate('resets', new Map<string, ResetHook>());
  },
  { name: 'context', fastify: '5.x' },
);
