import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createOutboxDelivery, type OutboxDelivery } from '../store/outbox-delivery.js';
import { type LicenseBook, loadLicenseBook } from './license-book.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The mock main's per-user licenses and blocked activation codes, with their outbox. */
    licenseBook: LicenseBook;
    /** Writes the outbox's events to the event store after each change (and on start). */
    mainOutbox: OutboxDelivery;
  }
}

/**
 * Loads the mock main's license book (kept in the data dir as `main-licenses.json`) and starts
 * delivering its outbox to the event store: at once, for what a crash left behind, and after each
 * change. Shared by the main service (which grants from it) and the admin API (which changes it).
 */
export const mainLicensingPlugin = fp(
  async (app: FastifyInstance) => {
    const book = await loadLicenseBook(app.store, {
      now: () => app.clock.now(),
      maxLicenses: app.config.limits.maxLicenses,
      audit: app.config.mainAuditEvents,
    });
    const outbox = createOutboxDelivery({
      outbox: book,
      events: app.eventStore,
      onError: (err) => app.log.warn({ err }, 'main could not write its events; retrying'),
    });
    book.onChange(() => outbox.kick());
    app.decorate('licenseBook', book);
    app.decorate('mainOutbox', outbox);
    // Registered after the event store's hook, so it runs first: deliveries stop before it closes.
    app.addHook('onClose', () => outbox.close());
    outbox.kick();
  },
  { name: 'main-licensing', fastify: '5.x', dependencies: ['context', 'event-store'] },
);
