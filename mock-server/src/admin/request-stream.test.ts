import { EventEmitter } from 'node:events';
import type { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestLog } from './request-log.js';
import { createRequestStreams } from './request-stream.js';

/** A reply that keeps the stream it is sent and never reads it (a reader that stalls). */
function stalledReply() {
  const sent: { stream?: PassThrough } = {};
  const raw = new EventEmitter();
  const reply = {
    raw,
    header: () => reply,
    send: (stream: PassThrough) => {
      sent.stream = stream;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, sent, raw };
}

const request = { headers: {} } as FastifyRequest;

function record(log: RequestLog, count: number) {
  for (let i = 0; i < count; i++) {
    log.record({
      at: i,
      service: 'main',
      method: 'GET',
      route: '/authz/.jwt',
      path: '/authz/.jwt',
      status: 200,
      ms: 1,
    });
  }
}

describe('request streams: a slow reader', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is not written to while backed up, holds bounded bytes, and is told what it missed', async () => {
    vi.useFakeTimers();
    const log = new RequestLog(100);
    const streams = createRequestStreams({ highWaterMark: 1024 });
    const { reply, sent } = stalledReply();
    streams.open(request, reply, log);
    const stream = sent.stream!;
    // Busy server, stalled reader: thousands of entries, far more than the log keeps.
    for (let round = 0; round < 50; round++) {
      record(log, 100);
      await vi.advanceTimersByTimeAsync(100);
    }
    // The stream stopped at its high-water mark plus at most one write of 200 entries.
    expect(stream.writableLength).toBeLessThan(1024 + 200 * 200);
    // The reader catches up: it drains, hears how many entries were dropped, then the newest.
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    await vi.advanceTimersByTimeAsync(0);
    await vi.waitFor(() => expect(text).toContain('event: dropped'));
    const dropped = /event: dropped\ndata: (\{[^\n]*\})/.exec(text)!;
    expect(JSON.parse(dropped[1]!).count).toBeGreaterThan(4000);
    await vi.waitFor(() => expect(text).toContain(`id: ${log.lastSeq}\n`));
    expect(streams.size).toBe(1);
    streams.endAll();
    expect(streams.size).toBe(0);
  });

  it('unsubscribes when the reader goes away', () => {
    const log = new RequestLog();
    const streams = createRequestStreams();
    const { reply, raw } = stalledReply();
    streams.open(request, reply, log);
    expect(log.subscriberCount).toBe(1);
    raw.emit('close');
    expect(log.subscriberCount).toBe(0);
    expect(streams.size).toBe(0);
  });
});
