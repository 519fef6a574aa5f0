// The two refusals of a body, with real clients over loopback: an over-limit body gets its 413
// ApiError read by the client (it used to lose it to EPIPE or a reset while still sending), and a
// media type no route takes is 415 everywhere (text/plain used to be a 400 on JSON routes).
import { request } from 'node:http';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { listenOnLoopback } from '../../test/helpers/listen.js';
import { buildApp } from '../app.js';

const LIMIT = 1024 * 1024;
/** A legacy JSON event of 2 MiB: twice the default body limit. */
const BIG_EVENT = JSON.stringify({
  eventType: 'Big',
  eventSourceId: 'big',
  data: 'x'.repeat(2 * LIMIT),
});

let app: FastifyInstance;
let origin: string;
let port: number;

beforeAll(async () => {
  app = await buildApp({ admin: true, state: 'active' });
  ({ origin, port } = await listenOnLoopback(app));
});
afterAll(() => app.close());

const expect413 = (status: number | undefined, body: string) => {
  expect(status).toBe(413);
  expect(JSON.parse(body)).toEqual({
    error: 'request_too_large',
    error_description: 'The request body exceeds the size limit',
  });
};

describe('a body over the limit', () => {
  it('gets its 413 read by fetch, sending the body whole or in a stream', async () => {
    for (let i = 0; i < 5; i++) {
      const whole = await fetch(`${origin}/events/put`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: BIG_EVENT,
      });
      expect413(whole.status, await whole.text());
      // In 64 KiB pieces with a pause between them: the client is still sending when the
      // server has answered, as a slow uplink would be.
      let offset = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (offset >= BIG_EVENT.length) return controller.close();
          await new Promise((resolve) => setTimeout(resolve, 1));
          controller.enqueue(new TextEncoder().encode(BIG_EVENT.slice(offset, offset + 65_536)));
          offset += 65_536;
        },
      });
      const streamed = await fetch(`${origin}/events/put`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(BIG_EVENT)),
        },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect413(streamed.status, await streamed.text());
    }
  });

  it('gets its 413 read by node:http', async () => {
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = request(
        `${origin}/events/put`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () =>
            resolve({ ...(res.statusCode ? { status: res.statusCode } : {}), body }),
          );
        },
      );
      req.on('error', reject);
      req.end(BIG_EVENT);
    });
    expect413(answer.status, answer.body);
  });

  it('keeps the connection while the client sends the rest: no EPIPE, and it serves the next request', async () => {
    const head =
      'POST /events/put HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(BIG_EVENT)}\r\n\r\n`;
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let error: string | undefined;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code;
    });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(head);
    // The server refuses on Content-Length alone: the 413 comes before any of the body.
    await new Promise<void>((resolve) => {
      const check = () => (text.includes('\r\n\r\n') ? resolve() : socket.once('data', check));
      check();
    });
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).not.toContain('connection: close');
    // Now the body, all of it: writing into a closed connection would fail with EPIPE.
    for (let offset = 0; offset < BIG_EVENT.length; offset += 65_536) {
      const written = socket.write(BIG_EVENT.slice(offset, offset + 65_536));
      if (!written) await new Promise((resolve) => socket.once('drain', resolve));
    }
    const before = text.length;
    socket.write('GET /idp/.well-known/openid-configuration HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise<void>((resolve) => {
      const check = () =>
        /HTTP\/1\.1 200 /.test(text.slice(before)) ? resolve() : socket.once('data', check);
      check();
    });
    socket.destroy();
    expect(error).toBeUndefined();
  });

  it('still closes a connection whose body is announced far over the limit', async () => {
    const huge = 64 * LIMIT;
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /events/put HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${huge}\r\n\r\n`,
        );
      });
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
  });
});

describe('a media type no route takes', () => {
  it.each([
    ['POST', '/idp/token', '{"sub":"u"}'],
    ['PUT', '/admin/clock', '{"offsetMs":1}'],
    ['POST', '/admin/faults', '{"mode":"reset"}'],
    ['POST', '/admin/main/licenses', '{"sub":"u","item":"Pro"}'],
    ['PUT', '/admin/standby/propagation-delay', '{"propagationDelayMs":1}'],
    ['POST', '/events/put', '{"eventType":"T","eventSourceId":"s"}'],
    ['POST', '/main/licensing/actions/checkout', '[]'],
    ['POST', '/standby/authz/.jwt', 'ItemA'],
  ])('%s %s with text/plain is 415 unsupported_media_type', async (method, path, body) => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: {
        'content-type': 'text/plain',
        // Past authentication on the licensing routes, so the body's type is what is judged.
        authorization: `IdToken ${signTestIdToken(app)}`,
      },
      body,
    });
    const answer = await res.json();
    expect(res.status).toBe(415);
    expect(answer).toMatchObject({ error: 'unsupported_media_type' });
    expect(Object.keys(answer).every((k) => ['error', 'error_description'].includes(k))).toBe(true);
  });

  it('changes nothing it was sent', async () => {
    await fetch(`${origin}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"mode":"reset"}',
    });
    const faults = (await (await fetch(`${origin}/admin/faults`)).json()) as { faults: unknown[] };
    expect(faults.faults).toEqual([]);
  });
});
