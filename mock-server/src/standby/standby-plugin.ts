import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createOutboxDelivery, type OutboxDelivery } from '../store/outbox-delivery.js';
import { type OutboxJournal, openOutboxJournal } from '../store/outbox-journal.js';
import { loadSigningKeyRing, type SigningKeyRing } from './signing-keys.js';
import { STANDBY_EVENT_SOURCE } from './standby-events.js';
import { loadStandbyState, type StandbyState } from './standby-state.js';
import { readStandbyUsage, type StandbyUsageView } from './standby-usage.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The standby's dormant/active state with its propagation delay; on disk with a data dir. */
    standbyState: StandbyState;
    /** The standby's signing keys, newest first; on disk with a data dir. */
    signingKeys: SigningKeyRing;
    /**
     * The events of the standby's lease answers not yet written to the event service; on disk
     * with a data dir (`standby-outbox.log`).
     */
    standbyOutbox: OutboxJournal;
    /** Writes the standby's outbox to the event store after each answer (and on start). */
    standbyOutboxDelivery: OutboxDelivery;
    /**
     * What the standby granted: its lease events received in `[from, to)` (ns) summarised per
     * consumer and item, as `standby-licensing usage` prints them.
     */
    standbyUsage(window?: { from?: bigint | undefined; to?: bigint | undefined }): StandbyUsageView;
  }
}

/** Name of the standby's outbox journal in the data dir. */
export const STANDBY_OUTBOX_FILE = 'standby-outbox.log';

/**
 * Loads the standby's state, signing keys (the first key of a first start is deferred) and outbox
 * journal, starts delivering the outbox to the event store (at once, for what a crash left
 * behind, then after each answer), and decorates the root instance with them: the standby service
 * answers from them, and the admin API shows them and moves the propagation delay.
 */
export const standbyPlugin = fp(
  async (app: FastifyInstance) => {
    const now = () => app.clock.now();
    const [keys, state, journal] = await Promise.all([
      loadSigningKeyRing(app.store, now),
      loadStandbyState(app.store, {
        initial: app.config.state,
        propagationDelayMs: app.config.propagationDelayMs,
        now,
      }),
      openOutboxJournal({
        dataDir: app.config.dataDir,
        file: STANDBY_OUTBOX_FILE,
        maxEntries: app.config.limits.maxStandbyOutbox,
        limitName: '--max-standby-outbox',
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
    const delivery = createOutboxDelivery({
      outbox: journal,
      events: app.eventStore,
      onError: (err) => app.log.warn({ err }, 'the standby could not write its events; retrying'),
    });
    journal.onChange(() => delivery.kick());
    app.decorate('signingKeys', keys);
    app.decorate('standbyState', state);
    app.decorate('standbyOutbox', journal);
    app.decorate('standbyOutboxDelivery', delivery);
    // The console asks every 2 s: the same window over an unchanged feed is answered again.
    let last: { key: string; view: StandbyUsageView } | undefined;
    app.decorate('standbyUsage', (window: { from?: bigint; to?: bigint } = {}) => {
      const feed = app.eventStore.feed(STANDBY_EVENT_SOURCE);
      const key = `${window.from}|${window.to}|${feed?.size ?? 0}|${feed?.at(feed.size - 1)?.ts}|${journal.pendingEvents}`;
      if (last?.key !== key)
        last = { key, view: readStandbyUsage(app.eventStore, journal, window) };
      return last.view;
    });
    // Registered after the event store's hook, so it runs first: deliveries stop before it closes.
    app.addHook('onClose', async () => {
      await delivery.close();
      await journal.close();
    });
    delivery.kick();
  },
  { name: 'standby-state', fastify: '5.x', dependencies: ['context', 'event-store'] },
);
