// Runs the runnable examples to completion against an in-process mock server (what
// `npm run -s mock-server -- --state active --admin --api-key ...` starts), passing its URLs to each
// example's `main()`, and checks what they observed. The QA drill example is a test file itself.

import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as runDesktopApp } from './desktop-app.js';
import { main as tailEvents } from './tail-events.js';
import { main as writeSignedEvent } from './write-signed-event.js';

const API_KEY = 'examples-test-key';
let mock: RunningServer;
let adminUrl: string;
/** An RSA key the strict server below does not trust. */
let writerKey: ReturnType<typeof newRsaKey>;

beforeAll(async () => {
  writerKey = newRsaKey();
  mock = await startServer({ port: 0, state: 'active', admin: true, apiKey: API_KEY });
  adminUrl = mock.info.mainUrl.replace(/\/main$/, '/admin');
});
afterAll(async () => {
  await mock.close();
});

function newRsaKey() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
}

describe('examples/desktop-app.ts', () => {
  it('keeps its leases on main, then on the standby through the outage, then on main; releases and repairs main', async () => {
    const lines: string[] = [];
    const { mainUrl, standbyUrl, idpUrl } = mock.info;
    const report = await runDesktopApp({
      mainUrl,
      standbyUrl,
      idpUrl,
      adminUrl,
      renewalsPerPhase: 2,
      renewEveryMs: 300,
      log: (line) => lines.push(line),
    });

    // Each lease went main -> standby -> main. (Per item: the keeper renews both leases
    // concurrently, so across items a renewal started on one service just before a switch can
    // finish after another item's first renewal on the other, as a loaded machine showed once.)
    expect(report.timelines).toEqual({
      ItemA: ['main', 'standby', 'main'],
      ItemB: ['main', 'standby', 'main'],
    });
    expect(report.released).toBe(2);
    const checkouts = report.served.filter((s) => s.kind === 'checkout');
    expect(checkouts.map((s) => [s.item, s.servedBy])).toEqual([
      ['ItemA', 'main'],
      ['ItemB', 'main'],
    ]);
    for (const item of ['ItemA', 'ItemB']) {
      const renewals = report.served.filter((s) => s.kind === 'renewal' && s.item === item);
      const services = renewals.map((s) => s.servedBy);
      // Every item was renewed at least twice by each service, in that order.
      expect(services.filter((s) => s === 'standby').length).toBeGreaterThanOrEqual(2);
      expect(services.lastIndexOf('main')).toBeGreaterThan(services.indexOf('standby'));
      // Its first renewal back on main was a new lease: main never saw the standby's lease id.
      const back = renewals.find((s, i) => s.servedBy === 'main' && services[i - 1] === 'standby');
      expect(back?.reissued).toBe(true);
    }
    expect(lines.some((line) => line.includes('failover main -> standby'))).toBe(true);
    expect(lines.some((line) => line.includes('failback standby -> main'))).toBe(true);
    expect(lines.at(-1)).toBe('released 2 leases; done');
    // The example cleared its fault: the shared mock is healthy again.
    const faults = (await (await fetch(`${adminUrl}/faults`)).json()) as { faults: unknown[] };
    expect(faults.faults).toEqual([]);
  }, 60_000);

  it('explains a dormant standby instead of failing obscurely', async () => {
    const { mainUrl, standbyUrl, idpUrl } = mock.info;
    const manage = (path: string) =>
      fetch(`${standbyUrl}/${path}`, { method: 'POST', headers: { 'Service-ApiKey': API_KEY } });
    expect((await manage('disabled')).status).toBe(200);
    try {
      await expect(
        runDesktopApp({ mainUrl, standbyUrl, idpUrl, adminUrl, log: () => {} }),
      ).rejects.toThrow(/start the mock server with --state active/);
    } finally {
      expect((await manage('enabled')).status).toBe(200);
    }
  });
});

describe('examples/tail-events.ts and examples/write-signed-event.ts', () => {
  it('the tail receives exactly the events the writer wrote, in order', async () => {
    const feed = `examples-${randomUUID()}`;
    const { eventUrl, idpUrl } = mock.info;
    const printed: string[] = [];
    // The tail starts first and waits in a long poll for the writer's batch.
    const tail = tailEvents({
      eventUrl,
      idpUrl,
      feed,
      limit: 3,
      maxWaitMs: 10_000,
      log: (line) => printed.push(line),
    });
    const { written } = await writeSignedEvent({ eventUrl, source: feed, count: 3, log: () => {} });
    const { events, cursor } = await tail;

    expect(events.map((e) => e.eventId)).toEqual(written.map((e) => e.eventId));
    expect(events.map((e) => e.data)).toEqual(written.map((e) => e.data));
    expect(
      events.every((e) => e.eventSourceId === feed && e.eventType === 'LicenseProvisioned'),
    ).toBe(true);
    expect(cursor).toBe(events[2]!.eventReceived_str);
    // One line per event, after the banner.
    expect(printed).toHaveLength(4);
    expect(printed[1]).toContain(events[0]!.eventReceived_str);
  });

  it('the tail resumes after a cursor without repeating events', async () => {
    const feed = `examples-${randomUUID()}`;
    const { eventUrl, idpUrl } = mock.info;
    // One shared key: RSA key generation is the slow part of a write.
    const privateKeyPem = writerKey.privateKey;
    await writeSignedEvent({ eventUrl, privateKeyPem, source: feed, count: 2, log: () => {} });
    const first = await tailEvents({ eventUrl, idpUrl, feed, limit: 2, log: () => {} });
    const { written } = await writeSignedEvent({
      eventUrl,
      privateKeyPem,
      source: feed,
      count: 1,
      log: () => {},
    });
    const resumed = await tailEvents({
      eventUrl,
      idpUrl,
      feed,
      after: first.cursor!,
      limit: 1,
      log: () => {},
    });
    expect(resumed.events.map((e) => e.eventId)).toEqual([written[0]!.eventId]);
  });
});

describe('examples/write-signed-event.ts against a server started with --event-writer-key', () => {
  let strict: RunningServer;
  const trusted = newRsaKey();
  beforeAll(async () => {
    strict = await startServer({ port: 0, eventWriterKeys: [trusted.publicKey] });
  });
  afterAll(async () => {
    await strict.close();
  });

  it('writes with the trusted key, and returns its public key as the server needs it', async () => {
    const feed = `examples-${randomUUID()}`;
    const { eventUrl, idpUrl } = strict.info;
    const result = await writeSignedEvent({
      eventUrl,
      privateKeyPem: trusted.privateKey,
      source: feed,
      count: 2,
      log: () => {},
    });
    expect(result.publicKeyPem).toBe(trusted.publicKey);
    const { events } = await tailEvents({ eventUrl, idpUrl, feed, limit: 2, log: () => {} });
    expect(events.map((e) => e.eventId)).toEqual(result.written.map((e) => e.eventId));
  });

  it('is refused with UNAUTHORIZED when signing with a key the server does not trust', async () => {
    const { eventUrl } = strict.info;
    await expect(
      writeSignedEvent({ eventUrl, privateKeyPem: writerKey.privateKey, log: () => {} }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});
