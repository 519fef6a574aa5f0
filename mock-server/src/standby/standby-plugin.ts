import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { loadSigningKeyRing, type SigningKeyRing } from './signing-keys.js';
import { loadStandbyState, type StandbyState } from './standby-state.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The standby's dormant/active state with its propagation delay; on disk with a data dir. */
    standbyState: StandbyState;
    /** The standby's signing keys, newest first; on disk with a data dir. */
    signingKeys: SigningKeyRing;
  }
}

/**
 * Loads the standby's state and signing keys (the first key of a first start is deferred) and
 * decorates the root instance with them: the standby service answers from them, and the admin
 * API shows them and moves the propagation delay.
 */
export const standbyPlugin = fp(
  async (app: FastifyInstance) => {
    const now = () => app.clock.now();
    const [keys, state] = await Promise.all([
      loadSigningKeyRing(app.store, now),
      loadStandbyState(app.store, {
        initial: app.config.state,
        propagationDelayMs: app.config.propagationDelayMs,
        now,
      }),
    ]);
    // On a first start the first signing key is made on demand or right after listening.
    app.deferredKeys.add({
      get: async () => {
        await keys.ready();
        return keys.current;
      },
      get value() {
        return keys.list()[0];
      },
    });
    app.decorate('signingKeys', keys);
    app.decorate('standbyState', state);
  },
  { name: 'standby-state', fastify: '5.x', dependencies: ['context'] },
);
