import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventClient, type EventClient, type NewEvent } from '@standby-licensing/sdk';
import {
  type Measured,
  measureAlternating,
  measureAsync,
  perWallSecond,
  ratioOf,
  summarize,
} from './bench-helpers.js';
import type { BenchLine, BenchRow } from './bench-result.js';
import { type ChildServer, startChildServer } from './child-server.js';
import { mintToken } from './mock-api.js';

/** Target of row 4: long-poll wake latency p99 below this, in ms, on loopback. */
export const WAKE_P99_TARGET_MS = 10;
/** Events per written batch. */
export const BATCH_SIZE = 100;
/** Target of row 4 writes: SDK putAll against posting pre-signed batches. */
export const PUT_TARGET = 0.85;

/** Times `client.putAll` over a source that yields batches until its deadline. */
async function measurePutAll(
  source: (end: number) => AsyncIterable<NewEvent[]>,
  client: EventClient,
  durationMs: number,
): Promise<Measured> {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const { batches } = await client.putAll(source(start + durationMs));
  const cpu = process.cpuUsage(cpuStart);
  return {
    ops: batches,
    wallMs: performance.now() - start,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

function batch(source: string, n: number, offset: number): NewEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    eventType: 'LicenseProvisioned',
    eventSourceId: source,
    data: { licensedItemName: 'ItemA', activationCode: `AC-${offset + i}`, seq: offset + i },
  }));
}

/** A compact RS256 JWS over `payload`, signed with node:crypto (for the raw references). */
function compactJws(payload: unknown, privateKeyPem: string): string {
  const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${segment({ alg: 'RS256' })}.${segment(payload)}`;
  const signature = sign('sha256', Buffer.from(input), createPrivateKey(privateKeyPem));
  return `${input}.${signature.toString('base64url')}`;
}

interface RawPage {
  count: number;
  objects: Array<{ eventType: string; url?: string; instruction?: string; count?: number }>;
}

/** Walks a feed forward with plain fetch + JSON.parse (no SDK): the read reference. */
async function rawReadAll(server: ChildServer, feed: string, token: string, pageSize: number) {
  let url = `${server.info.eventUrl}/get/${feed}?maxEventCount=${pageSize}&newest=false`;
  let events = 0;
  for (;;) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const page = (await response.json()) as RawPage;
    events += page.count;
    const newer = page.objects.at(-1)!;
    if (page.count < pageSize || newer.count === 0) return events;
    url = `${server.info.eventUrl}/get/${newer.url}&maxEventCount=${pageSize}`;
  }
}

/**
 * Row 4: the event service through the SDK. Writes: `putAll` of signed (RS256 JWS) batches of 100,
 * one in flight with the next signed meanwhile, against a plain `fetch` POST of a batch signed
 * beforehand (the server's share), the two in alternating slices; awaiting `put` for each batch
 * is reported beside it.
 * Reads: `client.read()` of a whole feed in pages of 1000, against plain `fetch` + `JSON.parse`
 * of the same pages. Long-poll wake: a request parked with `after` and `maxWaitMs` 30 000, then
 * one signed event written; time from the write's start to the parked request's answer, against
 * the round trip of a feed read that answers at once.
 */
export const eventsRow: BenchRow = {
  name: 'events',
  id: 4,
  title: 'Event service: writes, reads, long-poll wake latency',
  async run({ quick, log }) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const dir = mkdtempSync(join(tmpdir(), 'bench-events-'));
    const writerKeyFile = join(dir, 'writer.pub.pem');
    writeFileSync(writerKeyFile, publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const server = await startChildServer({ args: ['--event-writer-key', writerKeyFile] });
    try {
      const readToken = await mintToken(server, { sub: 'bench-reader', claims: { '*': true } });
      const client = createEventClient({
        eventUrl: server.info.eventUrl,
        auth: { token: () => readToken },
        signer: { privateKey: privatePem, alg: 'RS256' },
      });
      const durationMs = quick ? 1000 : 5000;
      const lines: BenchLine[] = [];

      let written = 0;
      // Warm up the key import and the connection.
      await client.put(batch('bench-write', BATCH_SIZE, written));
      written += BATCH_SIZE;
      const timed = async function* (end: number) {
        while (performance.now() < end) {
          yield batch('bench-write', BATCH_SIZE, written);
          written += BATCH_SIZE;
        }
      };
      const presigned = Array.from({ length: 16 }, (_, i) =>
        compactJws(batch('bench-write-raw', BATCH_SIZE, i * BATCH_SIZE), privatePem),
      );
      let next = 0;
      const rawPost = async () => {
        const response = await fetch(`${server.info.eventUrl}/put`, {
          method: 'POST',
          headers: { 'content-type': 'application/jose' },
          body: presigned[next++ % presigned.length],
        });
        await response.arrayBuffer();
        if (response.status !== 201) throw new Error(`put: HTTP ${response.status}`);
      };
      await measureAsync(rawPost, 200);
      log('row 4: writes, SDK putAll against raw fetch of pre-signed batches, alternating slices');
      // The server's CPU per arm too: on a busy host the wall ratio moves with the machine, the
      // CPU per batch of client and server does not (as much).
      const serverCpuMs = { raw: 0, sdk: 0 };
      const withServerCpu =
        (arm: keyof typeof serverCpuMs, slice: (ms: number) => Promise<Measured>) =>
        async (ms: number) => {
          const before = server.cpuMs();
          const measured = await slice(ms);
          serverCpuMs[arm] += server.cpuMs() - before;
          return measured;
        };
      const alternated = await measureAlternating(
        withServerCpu('raw', (ms) => measureAsync(rawPost, ms, { warmupMs: 0 })),
        withServerCpu('sdk', (ms) => measurePutAll(timed, client, ms)),
        { rounds: quick ? 2 : 10, sliceMs: durationMs / (quick ? 2 : 5) },
      );
      const rawWrites = alternated.a;
      const sdkWrites = alternated.b;
      log('row 4: writes through the SDK put, one awaited at a time (for comparison)');
      const sdkSerialWrites = await measureAsync(async () => {
        await client.put(batch('bench-write', BATCH_SIZE, written));
        written += BATCH_SIZE;
      }, durationMs);
      const ours = perWallSecond(sdkWrites) * BATCH_SIZE;
      const reference = perWallSecond(rawWrites) * BATCH_SIZE;
      lines.push({
        row: '4 write',
        metric: 'events written/s via SDK putAll (signed RS256 JWS, batches of 100)',
        ours,
        unit: '/s',
        reference,
        referenceLabel: 'fetch POST of pre-signed batches',
        ...ratioField(ours, reference),
        target: `ratio >= ${PUT_TARGET}`,
        met: ours / reference >= PUT_TARGET,
        details: {
          batches: sdkWrites.ops,
          rawBatches: rawWrites.ops,
          serialPutPerS: Math.round(perWallSecond(sdkSerialWrites) * BATCH_SIZE),
          roundRatioMin: Number(Math.min(...alternated.roundRatios).toFixed(3)),
          roundRatioMax: Number(Math.max(...alternated.roundRatios).toFixed(3)),
          serialPutRatio: Number(
            ((perWallSecond(sdkSerialWrites) * BATCH_SIZE) / reference).toFixed(3),
          ),
          // CPU per batch (ms): the harness is the client; the server's from /proc.
          clientCpuPerBatch: Number((sdkWrites.cpuMs / sdkWrites.ops).toFixed(3)),
          rawClientCpuPerBatch: Number((rawWrites.cpuMs / rawWrites.ops).toFixed(3)),
          serverCpuPerBatch: Number((serverCpuMs.sdk / sdkWrites.ops).toFixed(3)),
          rawServerCpuPerBatch: Number((serverCpuMs.raw / rawWrites.ops).toFixed(3)),
        },
      });

      log('row 4: reads');
      const readEvents = quick ? 5_000 : 50_000;
      for (let offset = 0; offset < readEvents; offset += 1000) {
        const response = await fetch(`${server.info.eventUrl}/put`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(batch('bench-read', 1000, offset)),
        });
        if (response.status !== 201) throw new Error(`seed: HTTP ${response.status}`);
      }
      const pageSize = 1000;
      const sdkRead = async () => {
        let n = 0;
        for await (const _event of client.read('bench-read', { pageSize })) n++;
        if (n !== readEvents) throw new Error(`SDK read ${n} events, expected ${readEvents}`);
      };
      const rawRead = async () => {
        const n = await rawReadAll(server, 'bench-read', readToken, pageSize);
        if (n !== readEvents) throw new Error(`raw read ${n} events, expected ${readEvents}`);
      };
      await sdkRead();
      await rawRead();
      const sdkReads: number[] = [];
      const rawReads: number[] = [];
      for (let i = 0; i < (quick ? 2 : 6); i++) {
        for (const [fn, out] of [
          [sdkRead, sdkReads],
          [rawRead, rawReads],
        ] as const) {
          const start = performance.now();
          await fn();
          out.push(performance.now() - start);
        }
      }
      const readOurs = (readEvents / summarize(sdkReads).p50) * 1000;
      const readReference = (readEvents / summarize(rawReads).p50) * 1000;
      lines.push({
        row: '4 read',
        metric: 'events read/s via SDK read() (pages of 1000)',
        ours: readOurs,
        unit: '/s',
        reference: readReference,
        referenceLabel: 'fetch + JSON.parse of the same pages',
        ...ratioField(readOurs, readReference),
        details: { feedEvents: readEvents, walks: sdkReads.length },
      });

      log('row 4: long-poll wake latency');
      const samples = quick ? 20 : 200;
      const wake: number[] = [];
      const roundTrip: number[] = [];
      const feedUrl = `${server.info.eventUrl}/get/bench-wake`;
      const headers = { authorization: `Bearer ${readToken}` };
      let after = '0';
      for (let i = 0; i < samples; i++) {
        const body = compactJws(
          { eventType: 'LicenseRevoked', eventSourceId: 'bench-wake', data: { i } },
          privatePem,
        );
        const start0 = performance.now();
        const immediate = await fetch(`${feedUrl}?after=${after}&maxEventCount=10`, { headers });
        await immediate.arrayBuffer();
        roundTrip.push(performance.now() - start0);

        const parked = fetch(`${feedUrl}?after=${after}&maxWaitMs=30000&maxEventCount=10`, {
          headers,
        }).then(async (response) => {
          const page = (await response.json()) as {
            objects: Array<{ eventReceived_str?: string }>;
          };
          return { at: performance.now(), page };
        });
        // Let the poll reach the server and park there before the write.
        await new Promise((resolve) => setTimeout(resolve, 15));
        const start = performance.now();
        const write = await fetch(`${server.info.eventUrl}/put`, {
          method: 'POST',
          headers: { 'content-type': 'application/jose' },
          body,
        });
        await write.arrayBuffer();
        const { at, page } = await parked;
        const event = page.objects.find((object) => object.eventReceived_str !== undefined);
        if (!event?.eventReceived_str) throw new Error('the parked poll returned no event');
        after = event.eventReceived_str;
        wake.push(at - start);
      }
      const w = summarize(wake);
      const rt = summarize(roundTrip);
      lines.push({
        row: '4 wake p50',
        metric: 'long-poll wake latency (write start -> parked reader answered), p50',
        ours: w.p50,
        unit: 'ms',
        reference: rt.p50,
        referenceLabel: 'immediate feed read round trip, p50',
        ...ratioField(w.p50, rt.p50),
        details: { samples: w.n, maxMs: w.max },
      });
      lines.push({
        row: '4 wake p99',
        metric: 'long-poll wake latency, p99',
        ours: w.p99,
        unit: 'ms',
        reference: rt.p99,
        referenceLabel: 'immediate feed read round trip, p99',
        ...ratioField(w.p99, rt.p99),
        target: `< ${WAKE_P99_TARGET_MS} ms`,
        met: w.p99 < WAKE_P99_TARGET_MS,
      });
      return lines;
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function ratioField(ours: number, reference: number): { ratio?: number } {
  const ratio = ratioOf(ours, reference);
  return ratio === undefined ? {} : { ratio };
}
