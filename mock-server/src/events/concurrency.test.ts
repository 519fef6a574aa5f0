import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriterKey, mintReadToken, signEvents } from '../../test/helpers/events.js';
import { buildApp } from '../app.js';
import { createEventStore } from '../store/event-store.js';

type App = Awaited<ReturnType<typeof buildApp>>;

const WRITERS = 25;
const WRITES_EACH = 20;

describe('concurrent writers over real HTTP, with a data dir', () => {
  let app: App;
  let base: string;
  let dataDir: string;
  const writer = createWriterKey();

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'events-conc-'));
    app = await buildApp({ dataDir, eventWriterKeys: [writer.publicPem] });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/events`;
  });
  afterAll(async () => {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('loses and duplicates nothing, and timestamps strictly increase', async () => {
    const statuses = await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const codes: number[] = [];
        for (let i = 0; i < WRITES_EACH; i++) {
          // Every third write is a batch of two, the rest single events.
          const events = Array.from({ length: i % 3 === 0 ? 2 : 1 }, (_, k) => ({
            eventType: 'Conc',
            eventSourceId: 'conc',
            writer: w,
            seq: i * 2 + k,
          }));
          const res = await fetch(`${base}/put`, {
            method: 'POST',
            headers: { 'content-type': 'application/jose' },
            body: signEvents(events.length === 1 ? events[0] : events, writer.privateKey),
          });
          codes.push(res.status);
        }
        return codes;
      }),
    );
    expect(statuses.flat().every((code) => code === 201)).toBe(true);
    const expected = WRITERS * (WRITES_EACH + Math.ceil(WRITES_EACH / 3));

    const res = await fetch(`${base}/get/conc?maxEventCount=10000`, {
      headers: { authorization: `Bearer ${await mintReadToken(app)}` },
    });
    const text = await res.text();
    const events = (JSON.parse(text).objects as Array<Record<string, unknown>>).slice(1, -1);
    expect(events).toHaveLength(expected);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(expected);
    expect(new Set(events.map((e) => `${e.writer}:${e.seq}`)).size).toBe(expected);
    const stamps = events.map((e) => BigInt(e.eventReceived_str as string));
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! > stamps[i - 1]!).toBe(true);
    // Each writer's own writes appear in the order it made them.
    for (let w = 0; w < WRITERS; w++) {
      const seqs = events.filter((e) => e.writer === w).map((e) => e.seq as number);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }

    // The log on disk holds the same events in the same order.
    const replayed = await createEventStore({ dataDir });
    const index = replayed.feed('conc')!;
    expect(index.slice(0, index.size).map((e) => e.ts)).toEqual(stamps);
    await replayed.close();
  });
});
