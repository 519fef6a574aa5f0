import { compactVerify, generateKeyPair } from 'jose';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEventClient } from './create-event-client.js';
import type { NewEvent } from './put-events.js';

const eventUrl = 'http://events.test/events';
const server = setupServer();
let keys: CryptoKeyPair;
beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  keys = await generateKeyPair('RS256', { extractable: true });
});
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const batch = (n: number): NewEvent[] => [
  { eventType: 'Tick', eventSourceId: 'clock', data: { n } },
  { eventType: 'Tick', eventSourceId: 'clock', data: { n, second: true } },
];

/** A source of `count` batches that records how far it was pulled and whether it was closed. */
function source(count: number) {
  const state = { pulled: 0, closed: false };
  async function* batches() {
    try {
      for (let n = 0; n < count; n++) {
        state.pulled = n + 1;
        yield batch(n);
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, batches: batches() };
}

describe('putAll', () => {
  it('signs the next batch while the last one is in flight, and posts them in order', async () => {
    const posted: number[] = [];
    const held: Array<() => void> = [];
    server.use(
      http.post(`${eventUrl}/put`, async ({ request }) => {
        const { payload } = await compactVerify(await request.text(), keys.publicKey);
        posted.push(
          (JSON.parse(new TextDecoder().decode(payload)) as NewEvent[])[0]!.data as never,
        );
        await new Promise<void>((resolve) => held.push(resolve));
        return new HttpResponse(null, { status: 201 });
      }),
    );
    const client = createEventClient({ eventUrl, signer: { privateKey: keys.privateKey } });
    const { state, batches } = source(3);
    const written: number[] = [];
    const done = client.putAll(batches, { onBatchWritten: (i) => written.push(i) });

    await vi.waitFor(() => expect(held).toHaveLength(1));
    // Batch 1 is on the wire, unanswered: batch 2 has already been taken and signed meanwhile.
    await vi.waitFor(() => expect(state.pulled).toBe(2));
    expect(posted).toHaveLength(1);
    held.shift()!();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    expect(written).toEqual([0]);
    held.shift()!();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    held.shift()!();
    await expect(done).resolves.toEqual({ batches: 3, events: 6 });
    expect(posted.map((data) => (data as unknown as { n: number }).n)).toEqual([0, 1, 2]);
    expect(written).toEqual([0, 1, 2]);
  });

  it('takes and signs the next batch only after the current request reached fetch', async () => {
    // Signing's JavaScript (JSON, base64url) run before `fetch` would hold the request back.
    const order: string[] = [];
    let posts = 0;
    const fetch = async () => {
      order.push(`fetch ${posts++}`);
      return new Response(null, { status: 201 });
    };
    const client = createEventClient({ eventUrl, fetch, signer: { privateKey: keys.privateKey } });
    async function* batches() {
      for (let n = 0; n < 3; n++) {
        order.push(`take ${n}`);
        yield batch(n);
      }
    }
    await expect(client.putAll(batches())).resolves.toEqual({ batches: 3, events: 6 });
    expect(order).toEqual(['take 0', 'fetch 0', 'take 1', 'fetch 1', 'take 2', 'fetch 2']);
  });

  it('stops at the first refusal: earlier batches stored and reported, none after it', async () => {
    let requests = 0;
    server.use(
      http.post(`${eventUrl}/put`, () => {
        requests += 1;
        return requests === 2
          ? HttpResponse.json({ error: 'invalid_request' }, { status: 400 })
          : new HttpResponse(null, { status: 201 });
      }),
    );
    const client = createEventClient({ eventUrl, signer: { privateKey: keys.privateKey } });
    const { state, batches } = source(5);
    const written: number[] = [];
    await expect(
      client.putAll(batches, { onBatchWritten: (i) => written.push(i) }),
    ).rejects.toMatchObject({ code: 'REQUEST_REJECTED', status: 400 });
    expect(written).toEqual([0]);
    expect(requests).toBe(2);
    expect(state.closed).toBe(true);
  });

  it('refuses an invalid batch before posting it, and takes plain arrays', async () => {
    let requests = 0;
    server.use(
      http.post(`${eventUrl}/put`, () => {
        requests += 1;
        return new HttpResponse(null, { status: 201 });
      }),
    );
    const client = createEventClient({ eventUrl, signer: { privateKey: keys.privateKey } });
    await expect(client.putAll([batch(0), batch(1)])).resolves.toEqual({ batches: 2, events: 4 });
    const bad = [batch(2), [{ eventType: 'Tick' } as NewEvent]];
    await expect(client.putAll(bad)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(requests).toBe(3);
  });
});
