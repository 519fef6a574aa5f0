import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createSigningPool, type SigningPool } from '../crypto/signing-pool.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Signs leases off the event loop (worker threads), shared by the standby and main. */
    signingPool: SigningPool;
  }
}

/**
 * Creates the lease signing pool with `threads` worker threads (`0`: inline signing; the threads
 * start with the first lease, or when `startServer` starts them after the keys) and closes it
 * with the server: `onClose` ends every thread, so `app.close()` leaves none behind.
 */
export const signingPoolPlugin = fp(
  async (app: FastifyInstance, opts: { threads: number }) => {
    const pool = createSigningPool({ threads: opts.threads });
    app.decorate('signingPool', pool);
    app.addHook('onClose', () => pool.close());
  },
  { name: 'signing-pool', fastify: '5.x' },
);
