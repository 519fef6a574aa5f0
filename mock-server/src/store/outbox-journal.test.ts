import { randomUUID } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventLog } from './event-log.js';
import { createEventStore, type EventStore } from './event-store.js';
import type { OutboxEvent } from './outbox.js';
import { createOutboxDelivery } from './outbox-delivery.js';
import { openOutboxJournal } from './outbox-journal.js';

const FILE = 'test-outbox.log';

function leaseEvent(consumer: string, item: string): OutboxEvent {
  return {
    eventId: randomUUID(),
    eventType: 'StandbyLeaseGranted',
    eventSourceId: 'standby',
    eventObjectType: 'consumer',
    eventObjectId: consumer,
    data: { leaseId: randomUUID(), licensedItemName: item },
  };
}

function feedIds(events: EventStore, name: string): string[] {
  const feed = events.feed(name);
  if (!feed) return [];
  return feed.slice(0, feed.size).map((s) => (JSON.parse(s.text) as OutboxEvent).eventId);
}

describe('outbox journal', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outbox-journal-'));
    dirs.push(dir);
    return dir;
  };
  const open = (dataDir?: string, maxEntries = 1000) =>
    openOutboxJournal({ dataDir, file: FILE, maxEntries, limitName: '--max-test' });

  it('stores records made at once with one fsynced write (group commit), in order', async () => {
    const dataDir = await tempDir();
    const journal = await open(dataDir);
    const append = vi.spyOn(EventLog.prototype, 'append');
    const events = Array.from({ length: 20 }, (_, i) => leaseEvent(`c${i}`, 'ItemA'));
    await Promise.all(events.map((event) => journal.record([event], 0n)));
    // The first record starts a write; the 19 queued meanwhile go together in the next.
    expect(append.mock.calls.length).toBeLessThanOrEqual(2);
    expect(journal.outbox().map((entry) => entry.events[0]!.eventId)).toEqual(
      events.map((e) => e.eventId),
    );
    expect(journal.pendingEvents).toBe(20);
    await journal.close();
    const again = await open(dataDir);
    expect(again.outbox().map((entry) => entry.change)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    await again.close();
  });

  it('lists an entry only once it is stored, and rejects a record whose write failed', async () => {
    const dataDir = await tempDir();
    const journal = await open(dataDir);
    vi.spyOn(EventLog.prototype, 'append').mockRejectedValueOnce(new Error('disk full'));
    await expect(journal.record([leaseEvent('c', 'A')], 0n)).rejects.toThrow('disk full');
    expect(journal.outbox()).toEqual([]);
    await journal.record([leaseEvent('c', 'B')], 0n);
    expect(journal.outbox()).toHaveLength(1);
    await journal.close();
  });

  it('forgets acknowledged entries across a restart and empties a spent journal', async () => {
    const dataDir = await tempDir();
    const journal = await open(dataDir);
    for (let i = 0; i < 3; i++) await journal.record([leaseEvent('c', `I${i}`)], 0n);
    await journal.acknowledge(2);
    expect(journal.outbox().map((entry) => entry.change)).toEqual([3]);
    await journal.close();
    let again = await open(dataDir);
    expect(again.outbox().map((entry) => entry.change)).toEqual([3]);
    await again.acknowledge(3);
    await again.close();
    again = await open(dataDir);
    expect(again.outbox()).toEqual([]);
    expect((await stat(join(dataDir, FILE))).size).toBe(0);
    await again.close();
  });

  it('drops a torn last line (a crash mid-write) as never stored', async () => {
    const dataDir = await tempDir();
    const journal = await open(dataDir);
    await journal.record([leaseEvent('c', 'A')], 0n);
    await journal.close();
    await appendFile(join(dataDir, FILE), '{"change":2,"storedAfter":"0","events":[{"ev');
    const again = await open(dataDir);
    expect(again.outbox()).toHaveLength(1);
    await again.record([leaseEvent('c', 'B')], 0n);
    await again.close();
    expect((await open(dataDir)).outbox().map((entry) => entry.change)).toEqual([1, 2]);
  });

  it('refuses a record with 503 outbox_full once maxEntries wait', async () => {
    const journal = await open(undefined, 2);
    await journal.record([leaseEvent('c', 'A')], 0n);
    await journal.record([leaseEvent('c', 'B')], 0n);
    await expect(journal.record([leaseEvent('c', 'C')], 0n)).rejects.toMatchObject({
      statusCode: 503,
      error: 'outbox_full',
    });
    await journal.acknowledge(1);
    await journal.record([leaseEvent('c', 'C')], 0n);
    await journal.close();
  });

  it('with the delivery: a crash between the event write and the acknowledgement writes nothing twice', async () => {
    const dataDir = await tempDir();
    const events = await createEventStore({ dataDir });
    const journal = await open(dataDir);
    const recorded = [leaseEvent('ann', 'A'), leaseEvent('bo', 'B'), leaseEvent('ann', 'C')];
    for (const event of recorded) await journal.record([event], events.lastTimestamp);
    // The journal as a kill right after the events were written would leave it: no ack line.
    const beforeDelivery = await readFile(join(dataDir, FILE), 'utf8');
    const delivery = createOutboxDelivery({ outbox: journal, events });
    delivery.kick();
    await delivery.idle();
    expect(journal.outbox()).toEqual([]);
    await delivery.close();
    await journal.close();
    await events.close();
    await writeFile(join(dataDir, FILE), beforeDelivery);

    const events2 = await createEventStore({ dataDir });
    const journal2 = await open(dataDir);
    expect(journal2.outbox()).toHaveLength(3);
    const append = vi.spyOn(events2, 'append');
    const again = createOutboxDelivery({ outbox: journal2, events: events2 });
    again.kick();
    await again.idle();
    expect(append).not.toHaveBeenCalled();
    expect(journal2.outbox()).toEqual([]);
    expect(feedIds(events2, 'standby')).toEqual(recorded.map((e) => e.eventId));
    expect(feedIds(events2, 'consumer/ann')).toEqual([recorded[0]!.eventId, recorded[2]!.eventId]);
    await again.close();
    await journal2.close();
    await events2.close();
  });

  it.each([
    ['in memory', false],
    ['with a data dir', true],
  ])(
    'with the delivery (%s): records made while a delivery runs are delivered too, none lost',
    async (_, onDisk) => {
      const dataDir = onDisk ? await tempDir() : undefined;
      const events = await createEventStore({ dataDir });
      const journal = await open(dataDir, 10_000);
      const delivery = createOutboxDelivery({ outbox: journal, events });
      journal.onChange(() => delivery.kick());
      const recorded: OutboxEvent[] = [];
      // 32 callers, each recording as soon as its last record is stored: records land while
      // deliveries append, as under load.
      await Promise.all(
        Array.from({ length: 32 }, async (_, caller) => {
          for (let i = 0; i < 20; i++) {
            const event = leaseEvent(`c${caller}`, `I${i}`);
            recorded.push(event);
            await journal.record([event], events.lastTimestamp);
          }
        }),
      );
      while (journal.outbox().length > 0) await delivery.idle();
      expect(new Set(feedIds(events, 'standby'))).toEqual(new Set(recorded.map((e) => e.eventId)));
      expect(events.size).toBe(recorded.length);
      await delivery.close();
      await journal.close();
      await events.close();
    },
  );

  it('with the delivery: after a crash before delivery, the next start writes each event once', async () => {
    const dataDir = await tempDir();
    const events = await createEventStore({ dataDir });
    const journal = await open(dataDir);
    const recorded = [leaseEvent('ann', 'A'), leaseEvent('ann', 'B')];
    await journal.record(recorded, events.lastTimestamp);
    await journal.close();
    await events.close();

    const events2 = await createEventStore({ dataDir });
    const journal2 = await open(dataDir);
    const delivery = createOutboxDelivery({ outbox: journal2, events: events2 });
    delivery.kick();
    await delivery.idle();
    expect(feedIds(events2, 'consumer/ann')).toEqual(recorded.map((e) => e.eventId));
    await delivery.close();
    await journal2.close();
    await events2.close();
  });
});
