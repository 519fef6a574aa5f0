import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { signTestIdToken } from '../../test/helpers/id-tokens.js';
import { listenOnLoopback } from '../../test/helpers/listen.js';
import { buildApp } from '../app.js';
import type { RequestLogEntry } from './request-log.js';

// A page on a loopback origin (a dev server): the admin API answers no other site.
const PAGE = 'http://localhost:5173';

/** One parsed server-sent event. */
interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

/** Reads server-sent events from a fetch body, one at a time. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const queue: SseEvent[] = [];
  return {
    /** The next event (comments and `retry:` lines skipped), or undefined at the end. */
    async next(): Promise<SseEvent | undefined> {
      while (queue.length === 0) {
        const end = buffered.indexOf('\n\n');
        if (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon <= 0) continue;
            fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
          }
          if (fields.event !== undefined) {
            queue.push({
              event: fields.event,
              data: fields.data ?? '',
              ...(fields.id === undefined ? {} : { id: fields.id }),
            });
          }
          continue;
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffered += decoder.decode(value, { stream: true });
      }
      return queue.shift();
    },
    /** Reads until an event satisfies `match`. */
    async until(match: (event: SseEvent) => boolean): Promise<SseEvent> {
      for (;;) {
        const event = await this.next();
        if (event === undefined) throw new Error('the stream ended');
        if (match(event)) return event;
      }
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}

const entryOf = (event: SseEvent) => JSON.parse(event.data) as RequestLogEntry;

describe('QA console and live request log', () => {
  let app: FastifyInstance;
  let origin: string;
  let idToken: string;

  beforeAll(async () => {
    app = await buildApp({ admin: true, state: 'active', apiKey: 'console-key' });
    ({ origin } = await listenOnLoopback(app));
    idToken = signTestIdToken(app, { claims: { sub: 'dora' } });
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    await fetch(`${origin}/admin/faults`, { method: 'DELETE' });
  });

  const requests = async (after = 0) =>
    (await (await fetch(`${origin}/admin/requests?after=${after}`)).json()) as {
      entries: RequestLogEntry[];
      lastSeq: number;
      readers: number;
    };

  it('serves the page, its script and style sheet: no build step, locked down by CSP', async () => {
    const page = await fetch(`${origin}/admin/console`, { headers: { origin: PAGE } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('access-control-allow-origin')).toBe(PAGE);
    const html = await page.text();
    expect(html).toContain('<script type="module" src="console.js">');
    expect(html).toContain('Break main');
    const script = await fetch(`${origin}/admin/console.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain("new EventSource(new URL('requests/stream', here))");
    const css = await fetch(`${origin}/admin/console.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('logs service, route, status, latency, caller, device and which service served a lease', async () => {
    const { lastSeq } = await requests();
    const auth = { authorization: `IdToken ${idToken}` };
    expect(
      (await fetch(`${origin}/main/authz/.jwt?ItemA&hw=desk-7;name=Desk`, { headers: auth }))
        .status,
    ).toBe(200);
    expect(
      (await fetch(`${origin}/standby/authz/.jwt?ItemA&hw=desk-7`, { headers: auth })).status,
    ).toBe(200);
    await fetch(`${origin}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'error', status: 503, count: 1 }),
    });
    expect((await fetch(`${origin}/main/authz/.jwt?ItemA`, { headers: auth })).status).toBe(503);
    await fetch(`${origin}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'reset', count: 1 }),
    });
    await expect(fetch(`${origin}/main/authz/.jwt?ItemA`, { headers: auth })).rejects.toThrow();
    // A preflight and admin reads are the console's own noise: not logged.
    await fetch(`${origin}/main/authz/.jwt`, { method: 'OPTIONS', headers: { origin: PAGE } });
    await fetch(`${origin}/admin/faults`);

    const { entries } = await requests(lastSeq);
    const simple = entries.map((e) => [e.service, e.method, e.route, e.status ?? e.outcome]);
    expect(simple).toEqual([
      ['main', 'GET', '/authz/.jwt', 200],
      ['standby', 'GET', '/authz/.jwt', 200],
      ['admin', 'POST', '/faults', 201],
      ['main', 'GET', '/authz/.jwt', 503],
      ['admin', 'POST', '/faults', 201],
      ['main', 'GET', '/authz/.jwt', 'reset'],
    ]);
    expect(entries[0]).toMatchObject({ caller: 'dora', hw: 'desk-7', servedBy: 'main' });
    expect(entries[1]).toMatchObject({ caller: 'dora', servedBy: 'standby' });
    expect(entries[3]).not.toHaveProperty('servedBy');
    expect(entries[5]).toMatchObject({ status: null, outcome: 'reset' });
    for (const entry of entries) expect(entry.ms).toBeGreaterThanOrEqual(0);
  });

  it('streams entries as server-sent events, with CORS headers, resuming after Last-Event-ID', async () => {
    const controller = new AbortController();
    const res = await fetch(`${origin}/admin/requests/stream`, {
      headers: { origin: PAGE },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(res.headers.get('vary')).toMatch(/Origin/);
    const events = sseReader(res.body!);
    await fetch(`${origin}/idp/.well-known/jwks.json?marker=1`);
    const seen = await events.until((e) => e.event === 'request' && entryOf(e).service === 'idp');
    const entry = entryOf(seen);
    expect(entry).toMatchObject({ route: '/.well-known/jwks.json', status: 200 });
    expect(seen.id).toBe(String(entry.seq));
    controller.abort();
    await events.cancel();

    // A reader that comes back with Last-Event-ID gets what came after it, nothing before.
    await fetch(`${origin}/idp/.well-known/openid-configuration`);
    const again = new AbortController();
    const resumed = await fetch(`${origin}/admin/requests/stream`, {
      headers: { 'last-event-id': String(entry.seq) },
      signal: again.signal,
    });
    const next = await sseReader(resumed.body!).until((e) => e.event === 'request');
    expect(entryOf(next).seq).toBe(entry.seq + 1);
    expect(entryOf(next).route).toBe('/.well-known/openid-configuration');
    again.abort();
  });

  it('forgets a reader the moment it goes away: no subscriber, no stream left', async () => {
    const controllers = Array.from({ length: 20 }, () => new AbortController());
    const bodies = await Promise.all(
      controllers.map((c) => fetch(`${origin}/admin/requests/stream`, { signal: c.signal })),
    );
    await vi.waitFor(async () => expect((await requests()).readers).toBe(20));
    for (const c of controllers) c.abort();
    await Promise.all(bodies.map((b) => b.body?.cancel().catch(() => undefined)));
    await vi.waitFor(async () => expect((await requests()).readers).toBe(0));
  });

  it('moves the propagation delay and shows the standby, its pending change and keys', async () => {
    const set = await fetch(`${origin}/admin/standby/propagation-delay`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ propagationDelayMs: 60_000 }),
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ state: 'active', propagationDelayMs: 60_000 });
    await fetch(`${origin}/standby/disabled`, {
      method: 'PUT',
      headers: { 'service-apikey': 'console-key' },
    });
    const view = await (await fetch(`${origin}/admin/standby`)).json();
    expect(view).toMatchObject({
      apiKeyHeader: 'Service-ApiKey',
      state: 'active',
      pending: { state: 'dormant', effectiveAt: expect.any(String) },
      propagationDelayMs: 60_000,
      signingKeys: [{ keyId: app.signingKeys.current.key.kid, createdAt: expect.any(String) }],
    });
    for (const body of [{ propagationDelayMs: '5' }, { propagationDelayMs: 300_001 }, {}]) {
      const refused = await fetch(`${origin}/admin/standby/propagation-delay`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(refused.status).toBe(400);
    }
    // Reset brings back the configured delay (0) and the initial state.
    await fetch(`${origin}/admin/reset?service=standby`, { method: 'POST' });
    const reset = await (await fetch(`${origin}/admin/standby`)).json();
    expect(reset).toMatchObject({ propagationDelayMs: 0, state: 'active' });
    expect(reset).not.toHaveProperty('pending');
  });

  it('shows the ID-token grace of each service with the clock', async () => {
    const clock = await (await fetch(`${origin}/admin/clock`)).json();
    expect(clock.idTokenGraceSeconds).toEqual({ main: 0, standby: 86_400 });
  });
});

describe('shutdown with a console connected', () => {
  it('ends the event streams so close() does not wait for them', async () => {
    const app = await buildApp({ admin: true });
    const { origin } = await listenOnLoopback(app);
    const res = await fetch(`${origin}/admin/requests/stream`);
    const events = sseReader(res.body!);
    await app.close();
    // The stream ends (or the connection drops) instead of staying open.
    await expect(
      (async () => {
        while ((await events.next()) !== undefined);
      })().catch(() => undefined),
    ).resolves.toBeUndefined();
  });
});
