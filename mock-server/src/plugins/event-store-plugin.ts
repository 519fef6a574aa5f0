import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createEventStore, type EventStore } from '../store/event-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The events of the event data service: written by `POST /events/put` and, after each
     * committed change, by the mock main's outbox. On disk with `--data-dir` (`events.log`).
     */
    eventStore: EventStore;
  }
}

/**
 * Opens the event store (replaying `<dataDir>/events.log`) and decorates the root instance with
 * it, so the event service and the services that write events (main) share one store. Closes it
 * when the server closes.
 */
export const eventStorePlugin = fp(
  async (app: FastifyInstance) => {
    const store = await createEventStore({
      dataDir: app.config.dataDir,
      now: () => app.clock.now(),
      onWarning: (message) => app.log.warn(message),
    });
    app.decorate('eventStore', store);
    app.addHook('onClose', () => store.close());
  },
  { name: 'event-store', fastify: '5.x', dependencies: ['context'] },
);
