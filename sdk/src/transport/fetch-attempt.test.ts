import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchAttempt } from './fetch-attempt.js';
import { createHttpAttempt, type HttpSend } from './http-attempt.js';

// The event client's plain sender and the licensing client's ky sender keep one contract: the
// same outcomes for the same exchanges, over real HTTP on loopback.
let server: Server;
let origin: string;
const open = new Set<Socket>();
beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      if (path === '/hang') return; // never answers
      if (path === '/stall') {
        // Headers and part of the body, then nothing more.
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"partial":');
        return;
      }
      response.writeHead(201, {
        'content-type': 'application/json',
        'x-seen-method': request.method,
      });
      response.end(
        JSON.stringify({
          method: request.method,
          contentType: request.headers['content-type'],
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of open) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** A port nothing listens on: bound, then closed. */
async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/`;
}

const senders: Array<[string, (fetchFn: typeof fetch) => HttpSend]> = [
  ['createFetchAttempt (event client)', createFetchAttempt],
  ['createHttpAttempt (ky, licensing client)', createHttpAttempt],
];

describe.each(senders)('%s', (_name, create) => {
  it('sends method, headers and body through fetch(url, init) called as a plain function', async () => {
    const calls: Array<{ self: unknown; url: unknown }> = [];
    const send = create(function (this: unknown, url, init) {
      calls.push({ self: this, url });
      return fetch(url, init);
    });
    const outcome = await send({
      url: `${origin}/put`,
      method: 'POST',
      headers: { 'Content-Type': 'application/jose' },
      body: 'a.b.c',
      timeoutMs: 5_000,
    });
    expect(outcome).toMatchObject({ kind: 'response', url: `${origin}/put`, status: 201 });
    if (outcome.kind !== 'response') return;
    expect(JSON.parse(outcome.body)).toEqual({
      method: 'POST',
      contentType: 'application/jose',
      body: 'a.b.c',
    });
    expect(outcome.headers.get('x-seen-method')).toBe('POST');
    expect(calls).toEqual([{ self: undefined, url: `${origin}/put` }]);
  });

  it('returns a refused connection as an error outcome, not a timeout', async () => {
    const url = await closedPortUrl();
    const outcome = await create((u, i) => fetch(u, i))({ url, timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ kind: 'error', url, timedOut: false });
  });

  it('times out when the response headers never come', async () => {
    const outcome = await create((u, i) => fetch(u, i))({ url: `${origin}/hang`, timeoutMs: 100 });
    expect(outcome).toMatchObject({ kind: 'error', timedOut: true });
  });

  it('times out when the body stalls after the headers', async () => {
    const outcome = await create((u, i) => fetch(u, i))({ url: `${origin}/stall`, timeoutMs: 200 });
    expect(outcome).toMatchObject({ kind: 'error', timedOut: true });
  });

  it("rejects with the caller's abort reason, before and during the exchange", async () => {
    const send = create((u, i) => fetch(u, i));
    const before = new AbortController();
    const early = new Error('stopped before');
    before.abort(early);
    await expect(
      send({ url: `${origin}/hang`, timeoutMs: 5_000, signal: before.signal }),
    ).rejects.toBe(early);
    const during = new AbortController();
    const late = new Error('stopped during');
    const pending = send({ url: `${origin}/hang`, timeoutMs: 5_000, signal: during.signal });
    setTimeout(() => during.abort(late), 20);
    await expect(pending).rejects.toBe(late);
  });
});
