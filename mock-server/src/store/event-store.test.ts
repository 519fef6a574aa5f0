import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_LOG_FILE } from './event-log.js';
import { createEventStore, type NewEvent } from './event-store.js';

const ev = (n: number, extra: Record<string, unknown> = {}): NewEvent => ({
  eventType: 'T',
  eventSourceId: 's',
  eventId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  n,
  ...extra,
});

const tsOf = (store: Awaited<ReturnType<typeof createEventStore>>, feed = 's') => {
  const index = store.feed(feed);
  return index ? index.slice(0, index.size).map((e) => e.ts) : [];
};

describe('event store', () => {
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'events-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('hands out strictly increasing timestamps even when the clock goes back', async () => {
    let now = 1_800_000_000_000;
    const store = await createEventStore({ now: () => now });
    const [a] = await store.append([ev(1)]);
    now -= 60_000;
    const [b, c] = await store.append([ev(2), ev(3)]);
    now += 120_000;
    const [d] = await store.append([ev(4)]);
    expect(a!.ts).toBe(1_800_000_000_000_000_000n);
    expect([b!.ts, c!.ts]).toEqual([a!.ts + 1n, a!.ts + 2n]);
    expect(d!.ts).toBe(1_800_000_060_000_000_000n);
    expect(d!.text).toMatch(
      /^\{"eventReceived":1800000060000000000,"eventReceived_str":"1800000060000000000",/,
    );
  });

  it('replays the log and continues above the last timestamp after a restart', async () => {
    const dataDir = await tempDir();
    const first = await createEventStore({ dataDir, now: () => 1_800_000_000_000 });
    await first.append([ev(1), ev(2, { eventObjectType: 'd', eventObjectId: 'x' })]);
    await first.append([ev(3)]);
    const before = tsOf(first);
    await first.close();
    // A clock behind the stored events: timestamps must still grow.
    const second = await createEventStore({ dataDir, now: () => 1_700_000_000_000 });
    expect(tsOf(second)).toEqual(before);
    expect(second.feed('d/x')?.size).toBe(1);
    const [next] = await second.append([ev(4)]);
    expect(next!.ts).toBe(before.at(-1)! + 1n);
    await second.close();
  });

  it('drops a torn last line and keeps appending cleanly', async () => {
    const dataDir = await tempDir();
    const first = await createEventStore({ dataDir });
    await first.append([ev(1)]);
    await first.close();
    const path = join(dataDir, EVENT_LOG_FILE);
    await appendFile(path, '{"ts":["1900000000000000000"],"events":[{"eventType":"T","even');
    const second = await createEventStore({ dataDir });
    expect(second.size).toBe(1);
    await second.append([ev(2)]);
    await second.close();
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(2);
    const third = await createEventStore({ dataDir });
    expect(third.size).toBe(2);
    await third.close();
  });

  it('refuses a log whose complete lines are corrupt', async () => {
    const dataDir = await tempDir();
    await writeFile(join(dataDir, EVENT_LOG_FILE), 'garbage\n{"ts":[],"events":[]}\n');
    await expect(createEventStore({ dataDir })).rejects.toThrow(/corrupt/);
  });

  it('skips a duplicated last line on replay with a warning naming the line', async () => {
    const dataDir = await tempDir();
    const first = await createEventStore({ dataDir });
    await first.append([ev(1), ev(2)]);
    await first.append([ev(3)]);
    await first.close();
    const path = join(dataDir, EVENT_LOG_FILE);
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    await appendFile(path, `${lines.at(-1)}\n${lines[0]}\n`);
    const warnings: string[] = [];
    const second = await createEventStore({ dataDir, onWarning: (m) => warnings.push(m) });
    expect(tsOf(second)).toHaveLength(3);
    expect(new Set(tsOf(second)).size).toBe(3);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain(`${path}: line 3`);
    expect(warnings[1]).toContain(`${path}: line 4`);
    // New writes continue above every replayed timestamp.
    const [next] = await second.append([ev(4)]);
    expect(next!.ts).toBeGreaterThan(tsOf(second)[2]!);
    await second.close();
  });

  it.each([
    ['a record of another shape', '{"events":[]}'],
    ['timestamps that are not digits', '{"ts":["x"],"events":[{"eventSourceId":"s"}]}'],
    ['more timestamps than events', '{"ts":["1","2"],"events":[{"eventSourceId":"s"}]}'],
    [
      'timestamps that do not increase within a batch',
      '{"ts":["5","5"],"events":[{"eventSourceId":"s"},{"eventSourceId":"s"}]}',
    ],
    ['an event without a source', '{"ts":["1"],"events":[{"eventType":"T"}]}'],
    ['a reset without a timestamp', '{"clear":true}'],
    ['JSON nested beyond any limit', `${'['.repeat(2000)}${']'.repeat(2000)}`],
  ])('refuses a log with %s, naming the line', async (_name, line) => {
    const dataDir = await tempDir();
    await writeFile(
      join(dataDir, EVENT_LOG_FILE),
      `{"ts":["1"],"events":[{"eventSourceId":"s"}]}\n${line}\n`,
    );
    await expect(createEventStore({ dataDir })).rejects.toThrow(
      `${join(dataDir, EVENT_LOG_FILE)}: line 2`,
    );
  });

  it('replays a reset: events gone, timestamps still above', async () => {
    const dataDir = await tempDir();
    const first = await createEventStore({ dataDir, now: () => 1_800_000_000_000 });
    await first.append([ev(1), ev(2)]);
    const last = first.lastTimestamp;
    await first.clear();
    await first.close();
    const second = await createEventStore({ dataDir, now: () => 1 });
    expect(second.size).toBe(0);
    expect(second.lastTimestamp).toBe(last);
    await second.close();
  });

  it('commits concurrent writes in one order on disk and in memory (group commit)', async () => {
    const dataDir = await tempDir();
    const store = await createEventStore({ dataDir, now: () => 1_800_000_000_000 });
    const committed: bigint[] = [];
    store.onCommit((events) => committed.push(...events.map((e) => e.ts)));
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => store.append([ev(2 * i), ev(2 * i + 1)])),
    );
    const all = tsOf(store);
    expect(all).toHaveLength(400);
    expect(committed).toEqual(all);
    for (let i = 1; i < all.length; i++) expect(all[i]! > all[i - 1]!).toBe(true);
    // Each batch kept its events together and in order.
    for (const [a, b] of results) expect(b!.ts).toBe(a!.ts + 1n);
    await store.close();
    const replayed = await createEventStore({ dataDir });
    expect(tsOf(replayed)).toEqual(all);
    await replayed.close();
  });

  it('fails only the write that cannot be serialised; the queue keeps going', async () => {
    const store = await createEventStore({ dataDir: await tempDir() });
    // Deeper than JSON.stringify can recurse: only a caller bypassing validation could send it.
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const results = await Promise.allSettled([
      store.append([ev(1)]),
      store.append([ev(2, { data: deep })]),
      store.append([ev(3)]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(RangeError);
    expect(tsOf(store)).toHaveLength(2);
    const [next] = await store.append([ev(4)]);
    expect(next!.ts).toBeGreaterThan(tsOf(store)[1]!);
    await store.close();
  });

  it('rejects writes after close', async () => {
    const store = await createEventStore();
    await store.close();
    await expect(store.append([ev(1)])).rejects.toThrow(/closed/);
  });
});
