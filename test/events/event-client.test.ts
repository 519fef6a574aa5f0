// The SDK's event client against the mock server's event service on loopback.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventClient, type EventSigner, type NewEvent } from '@standby-licensing/sdk';
import { exportSPKI, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../mock-server/src/server.js';

interface Counted {
  fetch: typeof fetch;
  urls: URL[];
}

function countingFetch(): Counted {
  const urls: URL[] = [];
  return {
    urls,
    fetch: (input, init) => {
      urls.push(new URL(input instanceof Request ? input.url : String(input)));
      return fetch(input, init);
    },
  };
}

const TOTAL = 3000;
const ticks = (source: string, from: number, count: number): NewEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    eventType: 'Tick',
    eventSourceId: source,
    data: { seq: from + i },
  }));
const seqOf = (event: { data?: unknown }) => (event.data as { seq: number }).seq;

describe('event client against the mock server', () => {
  let server: RunningServer;
  let writer: EventSigner;
  let readerKey: CryptoKey;

  beforeAll(async () => {
    const writerKeys = await generateKeyPair('RS384', { extractable: true });
    const readerKeys = await generateKeyPair('RS256', { extractable: true });
    writer = { privateKey: writerKeys.privateKey, alg: 'RS384' };
    readerKey = readerKeys.privateKey;
    server = await startServer({
      port: 0,
      eventWriterKeys: [await exportSPKI(writerKeys.publicKey)],
      eventReaderKeys: [await exportSPKI(readerKeys.publicKey)],
    });
    const client = createEventClient({ eventUrl: server.info.eventUrl, signer: writer });
    for (let from = 0; from < TOTAL; from += 500) await client.put(ticks('bulk', from, 500));
  });
  afterAll(() => server?.close());

  const reader = (fetchFn: typeof fetch = fetch, pageSize = 250) =>
    createEventClient({
      eventUrl: server.info.eventUrl,
      auth: { privateKey: readerKey },
      fetch: fetchFn,
      pageSize,
    });

  it('reads thousands of events across many pages, oldest first, each once in order', async () => {
    const counted = countingFetch();
    const seen: number[] = [];
    let last = -1n;
    for await (const event of reader(counted.fetch).read('bulk')) {
      expect(event.eventReceived > last).toBe(true);
      last = event.eventReceived;
      seen.push(seqOf(event));
    }
    expect(seen).toEqual(Array.from({ length: TOTAL }, (_, i) => i));
    // 12 full pages; the 12th's newer instruction says count 0, so no 13th request.
    expect(counted.urls).toHaveLength(TOTAL / 250);
  });

  it('reads them newest first too, each once in reverse order', async () => {
    const counted = countingFetch();
    const seen: number[] = [];
    for await (const event of reader(counted.fetch, 400).read('bulk', { order: 'newest-first' })) {
      seen.push(seqOf(event));
    }
    expect(seen).toEqual(Array.from({ length: TOTAL }, (_, i) => TOTAL - 1 - i));
    expect(counted.urls).toHaveLength(Math.ceil(TOTAL / 400));
  });

  it('pages resume from their cursor', async () => {
    const client = reader(fetch, 100);
    let cursor = '';
    for await (const page of client.pages('bulk')) {
      cursor = page.cursor;
      break;
    }
    const next = await client.collect('bulk', { after: cursor, limit: 3 });
    expect(next.map(seqOf)).toEqual([100, 101, 102]);
  });

  it('stops at limit and on abort without extra requests', async () => {
    const counted = countingFetch();
    const limited = await reader(counted.fetch).collect('bulk', { limit: 600 });
    expect(limited.map(seqOf)).toEqual(Array.from({ length: 600 }, (_, i) => i));
    expect(counted.urls.map((u) => u.searchParams.get('maxEventCount'))).toEqual([
      '250',
      '250',
      '100',
    ]);

    const aborting = countingFetch();
    const controller = new AbortController();
    let seen = 0;
    const error = await (async () => {
      for await (const _ of reader(aborting.fetch).read('bulk', { signal: controller.signal })) {
        if (++seen === 300) controller.abort(new Error('enough'));
      }
    })().catch((e: unknown) => e);
    expect(error).toEqual(new Error('enough'));
    expect(aborting.urls).toHaveLength(2);
  });

  it('follow receives events written after it started', async () => {
    const writerClient = createEventClient({ eventUrl: server.info.eventUrl, signer: writer });
    await writerClient.put(ticks('live', 0, 2));
    const client = reader();
    const controller = new AbortController();
    const seen: number[] = [];
    const following = (async () => {
      for await (const event of client.follow('live', {
        maxWaitMs: 5000,
        signal: controller.signal,
      })) {
        seen.push(seqOf(event));
        if (seen.length === 7) controller.abort();
      }
    })().catch((e: unknown) => e);
    await waitFor(() => seen.length === 2);
    await writerClient.put(ticks('live', 2, 3));
    await writerClient.put(ticks('live', 5, 2));
    const ended = await following;
    expect((ended as Error).name).toBe('AbortError');
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('writes signed batches and surfaces refusals as typed errors', async () => {
    const client = createEventClient({
      eventUrl: server.info.eventUrl,
      signer: writer,
      auth: { privateKey: readerKey },
    });
    await client.put([
      { eventType: 'LicenseRevoked', eventSourceId: 'licensing', data: { licensedItemName: 'A' } },
      {
        eventType: 'Deleted',
        eventSourceId: 'licensing',
        eventObjectType: 'UserSession',
        eventObjectId: 's-1',
        data: { oldFields: { id: 's-1' } },
      },
    ]);
    const events = await client.collect(
      { objectType: 'UserSession', objectId: 's-1' },
      { limit: 5 },
    );
    expect(events.map((e) => e.eventType)).toEqual(['Deleted']);

    const stranger = await generateKeyPair('RS256');
    await expect(
      client.put(ticks('bulk', 0, 1), { signer: { privateKey: stranger.privateKey } }),
    ).rejects.toMatchObject({
      name: 'ApiResponseError',
      code: 'UNAUTHORIZED',
      status: 401,
      error: 'invalid_signature',
    });
    const anonymous = createEventClient({ eventUrl: server.info.eventUrl });
    await expect(anonymous.collect('bulk', { limit: 1 })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      status: 401,
      error: 'unauthorized',
    });
    const garbled = createEventClient({
      eventUrl: server.info.eventUrl,
      auth: { token: () => 'not-a-jwt' },
    });
    await expect(garbled.collect('bulk', { limit: 1 })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      error: 'invalid_token',
    });
  });
});

describe('follow across a server restart (dataDir)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sdk-events-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function readToken(idpUrl: string, claims: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${idpUrl}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sub: 'reader', claims }),
    });
    return ((await response.json()) as { id_token: string }).id_token;
  }

  it('resumes from a saved cursor without gaps or repeats, and forbids other feeds', async () => {
    const writerKeys = await generateKeyPair('RS256', { extractable: true });
    const signer = { privateKey: writerKeys.privateKey };
    const writerKeysPem = [await exportSPKI(writerKeys.publicKey)];

    let server = await startServer({ port: 0, dataDir: dir, eventWriterKeys: writerKeysPem });
    const clientFor = (running: RunningServer) =>
      createEventClient({
        eventUrl: running.info.eventUrl,
        signer,
        auth: { token: () => readToken(running.info.idpUrl, { '*': true }) },
      });
    let client = clientFor(server);
    await client.put(ticks('restart', 0, 5));
    const seen: number[] = [];
    let saved = '';
    for await (const event of client.follow('restart', { maxWaitMs: 1000 })) {
      seen.push(seqOf(event));
      saved = event.eventReceived_str;
      if (seen.length === 3) break;
    }
    await server.close();

    server = await startServer({ port: 0, dataDir: dir, eventWriterKeys: writerKeysPem });
    try {
      client = clientFor(server);
      await client.put(ticks('restart', 5, 4));
      for await (const event of client.follow('restart', { after: saved, maxWaitMs: 1000 })) {
        seen.push(seqOf(event));
        if (seen.length === 9) break;
      }
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);

      const narrow = createEventClient({
        eventUrl: server.info.eventUrl,
        auth: { token: () => readToken(server.info.idpUrl, { other: true }) },
      });
      await expect(narrow.collect('restart', { limit: 1 })).rejects.toMatchObject({
        code: 'FORBIDDEN',
        status: 403,
        error: 'forbidden',
      });
    } finally {
      await server.close();
    }
  });

  it('a running follower rides out a restart on the same port without gaps or repeats', async () => {
    let server = await startServer({ port: 0, dataDir: dir });
    const { eventUrl, idpUrl } = server.info;
    const port = Number(new URL(eventUrl).port);
    const client = createEventClient({
      eventUrl,
      auth: { token: () => readToken(idpUrl, { '*': true }) },
    });
    const write = (from: number, count: number) =>
      fetch(`${eventUrl}/put`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(ticks('ride', from, count)),
      });
    const controller = new AbortController();
    const seen: number[] = [];
    const retries: string[] = [];
    const following = (async () => {
      for await (const event of client.follow('ride', {
        maxWaitMs: 2000,
        retryDelayMs: 50,
        maxRetryDelayMs: 200,
        minPollIntervalMs: 0,
        signal: controller.signal,
        onRetry: ({ error }) => retries.push(error.code),
      })) {
        seen.push(seqOf(event));
      }
    })().catch((e: unknown) => e);
    try {
      expect((await write(0, 2)).status).toBe(201);
      await waitFor(() => seen.length === 2);
      await server.close();
      server = await startServer({ port, dataDir: dir });
      expect((await write(2, 2)).status).toBe(201);
      await waitFor(() => seen.length === 4);
      controller.abort();
      expect(await following).toMatchObject({ name: 'AbortError' });
      expect(seen).toEqual([0, 1, 2, 3]);
      // While it was down: refused connections, and the token provider's own failed fetch.
      expect(retries.length).toBeGreaterThan(0);
      expect(retries.every((c) => c === 'SERVICE_UNAVAILABLE' || c === 'UNAUTHORIZED')).toBe(true);
    } finally {
      controller.abort();
      await server.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}
