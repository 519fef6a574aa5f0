import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type LicenseBook, loadLicenseBook } from '../main/license-book.js';
import { createEventStore, type EventStore, type NewEvent } from './event-store.js';
import { createOutboxDelivery } from './outbox-delivery.js';
import { createStateStore } from './state-store.js';

const NOW = Date.UTC(2033, 5, 1);

/** Every event of the `main` feed, parsed. */
function mainFeed(events: EventStore): Array<Record<string, unknown>> {
  const feed = events.feed('main');
  if (!feed) return [];
  return feed.slice(0, feed.size).map((stored) => JSON.parse(stored.text));
}

describe('outbox delivery', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** A license book and an event store over one data dir, as one server start opens them. */
  async function start(dataDir: string) {
    const store = await createStateStore(dataDir);
    const book = await loadLicenseBook(store, { now: () => NOW, maxLicenses: 100 });
    const events = await createEventStore({ dataDir, now: () => NOW });
    return { book, events };
  }

  async function tempDir() {
    const dir = await mkdtemp(join(tmpdir(), 'outbox-'));
    dirs.push(dir);
    return dir;
  }

  /** Three changes stored with their events in the outbox, none delivered yet. */
  async function threeChanges(book: LicenseBook) {
    const license = await book.provision({ sub: 'u1', item: 'Pro', activationCode: 'C-1' });
    await book.block('C-1');
    await book.revoke(license.licenseId);
    return license;
  }

  it('delivers stored changes in order and empties the outbox', async () => {
    const { book, events } = await start(await tempDir());
    await threeChanges(book);
    expect(book.outbox().map((e) => e.change)).toEqual([1, 2, 3]);
    const delivery = createOutboxDelivery({ outbox: book, events });
    delivery.kick();
    await delivery.idle();
    expect(mainFeed(events).map((e) => e.eventType)).toEqual([
      'LicenseProvisioned',
      'ActivationCodeBlocked',
      'LicenseRevoked',
    ]);
    expect(book.outbox()).toEqual([]);
    await events.close();
  });

  it('after a crash between the event write and the outbox update, writes nothing twice', async () => {
    const dataDir = await tempDir();
    const first = await start(dataDir);
    await threeChanges(first.book);
    // What the data dir holds when the server dies right after writing the events: the
    // outbox still lists them (main-licenses.json from before delivery), the log has them.
    const bookFile = join(dataDir, 'main-licenses.json');
    const beforeDelivery = await readFile(bookFile, 'utf8');
    const delivery = createOutboxDelivery({ outbox: first.book, events: first.events });
    delivery.kick();
    await delivery.idle();
    const delivered = mainFeed(first.events).map((e) => e.eventId);
    expect(delivered).toHaveLength(3);
    await first.events.close();
    await writeFile(bookFile, beforeDelivery);

    const second = await start(dataDir);
    expect(second.book.outbox()).toHaveLength(3);
    const again = createOutboxDelivery({ outbox: second.book, events: second.events });
    const append = vi.spyOn(second.events, 'append');
    again.kick();
    await again.idle();
    expect(append).not.toHaveBeenCalled();
    expect(mainFeed(second.events).map((e) => e.eventId)).toEqual(delivered);
    expect(second.book.outbox()).toEqual([]);
    await second.events.close();
  });

  it('after a crash with only some of the events written, writes just the missing ones', async () => {
    const dataDir = await tempDir();
    const first = await start(dataDir);
    await threeChanges(first.book);
    // The first change's events reached the log (by another route); the rest did not.
    const [entry] = first.book.outbox();
    await first.events.append(entry!.events as unknown as NewEvent[]);
    const delivery = createOutboxDelivery({ outbox: first.book, events: first.events });
    delivery.kick();
    await delivery.idle();
    const types = mainFeed(first.events).map((e) => e.eventType);
    expect(types).toEqual(['LicenseProvisioned', 'ActivationCodeBlocked', 'LicenseRevoked']);
    await first.events.close();
  });

  it('keeps the outbox while paused, and a change made meanwhile goes after the older ones', async () => {
    const { book, events } = await start(await tempDir());
    const delivery = createOutboxDelivery({ outbox: book, events });
    book.onChange(() => delivery.kick());
    delivery.setPaused(true);
    await threeChanges(book);
    await delivery.idle();
    expect(mainFeed(events)).toEqual([]);
    delivery.setPaused(false);
    await book.block('C-2');
    await delivery.idle();
    expect(mainFeed(events).map((e) => e.eventType)).toEqual([
      'LicenseProvisioned',
      'ActivationCodeBlocked',
      'LicenseRevoked',
      'ActivationCodeBlocked',
    ]);
    await events.close();
  });

  it('retries a failed write later, telling onError, and loses nothing', async () => {
    vi.useFakeTimers();
    try {
      const { book, events } = await start(await tempDir());
      const append = vi.spyOn(events, 'append');
      append.mockRejectedValueOnce(new Error('disk full'));
      const errors: unknown[] = [];
      const delivery = createOutboxDelivery({
        outbox: book,
        events,
        retryDelayMs: 500,
        onError: (error) => errors.push(error),
      });
      await threeChanges(book);
      delivery.kick();
      await delivery.idle();
      expect(errors).toEqual([expect.objectContaining({ message: 'disk full' })]);
      expect(book.outbox()).toHaveLength(3);
      await vi.advanceTimersByTimeAsync(500);
      await delivery.idle();
      expect(mainFeed(events)).toHaveLength(3);
      expect(book.outbox()).toEqual([]);
      await events.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('after the outbox update failed (the events written), the retry writes nothing twice', async () => {
    vi.useFakeTimers();
    try {
      const { book, events } = await start(await tempDir());
      await threeChanges(book);
      vi.spyOn(book, 'acknowledge').mockRejectedValueOnce(new Error('disk full'));
      const delivery = createOutboxDelivery({ outbox: book, events, retryDelayMs: 500 });
      delivery.kick();
      await delivery.idle();
      expect(mainFeed(events)).toHaveLength(3);
      expect(book.outbox()).toHaveLength(3);
      await vi.advanceTimersByTimeAsync(500);
      await delivery.idle();
      expect(mainFeed(events)).toHaveLength(3);
      expect(book.outbox()).toEqual([]);
      // Later changes go out without looking anything up: the outbox holds only new events.
      const feed = vi.spyOn(events, 'feed');
      await book.block('C-3');
      delivery.kick();
      await delivery.idle();
      expect(feed).not.toHaveBeenCalled();
      expect(mainFeed(events)).toHaveLength(4);
      await events.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('starts nothing after close', async () => {
    const { book, events } = await start(await tempDir());
    const delivery = createOutboxDelivery({ outbox: book, events });
    await delivery.close();
    await book.block('C-9');
    delivery.kick();
    await delivery.idle();
    expect(mainFeed(events)).toEqual([]);
    expect(book.outbox()).toHaveLength(1);
    await events.close();
  });
});
