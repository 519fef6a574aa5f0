// The event client in Chromium with the browser's own `fetch` (no `fetch` option: the
// "Illegal invocation" of issue 12 stays fixed): a page on its own origin writes a signed batch
// (WebCrypto RS256, the key the mock server trusts via eventWriterKeys, unsigned writes refused),
// reads it back, and follows the feed with long polling while Node writes another event.
import { generateKeyPairSync } from 'node:crypto';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { createEventClient } from '@standby-licensing/sdk';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumEndpoint } from '../helpers/browser/connect-browser.js';
import { issueToken } from '../helpers/browser/issue-token.js';
import { type PageFixture, startPageFixture } from '../helpers/browser/page-fixture.js';
import { logRequests, type RequestLog } from '../helpers/browser/request-log.js';
import type { EventReport } from './pages/event-app.js';

const FEED = 'browser-billing';

function rsaKeyPair() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

describe.skipIf(chromiumEndpoint() === null)('event client in Chromium, cross-origin', () => {
  const writer = rsaKeyPair();
  let mock: RunningServer;
  let fixture: PageFixture;
  let page: Page;
  let log: RequestLog;
  let optionNames: string[];

  beforeAll(async () => {
    [mock, fixture] = await Promise.all([
      startServer({
        port: 0,
        eventWriterKeys: [writer.publicKey],
        requireSignedEvents: true,
      }),
      startPageFixture(new URL('./pages/event-app.ts', import.meta.url), 'eventApp'),
    ]);
    const readToken = await issueToken(mock.info.idpUrl, {
      sub: 'browser-reader',
      claims: { '*': true },
    });
    log = logRequests(fixture.session.context);
    page = await fixture.open();
    optionNames = await page.evaluate((config) => window.eventApp.start(config), {
      eventUrl: mock.info.eventUrl,
      readToken,
      writerKeyPem: writer.privateKey,
    });
  });

  afterAll(async () => {
    await page?.evaluate(() => window.eventApp.stopFollowing());
    log?.stop();
    await fixture?.close();
    await mock?.close();
  });

  const read = (after?: string) =>
    page.evaluate(([feed, from]) => window.eventApp.read(feed, from), [FEED, after] as const);

  it('gives the SDK no fetch: the page’s own, unwrapped, is what it calls', async () => {
    expect(optionNames).not.toContain('fetch');
    expect(await page.evaluate(() => window.eventApp.nativeFetch())).toBe(true);
  });

  it('puts a signed batch cross-origin and reads it back', async () => {
    const written = await page.evaluate(
      (feed) =>
        window.eventApp.put([
          { eventType: 'InvoicePaid', eventSourceId: feed, data: { invoice: 'INV-1' } },
          { eventType: 'InvoicePaid', eventSourceId: feed, data: { invoice: 'INV-2' } },
        ]),
      FEED,
    );
    expect(written).toEqual({ ok: true, value: null });

    const result = await read();
    expect(result).toMatchObject({
      ok: true,
      value: [
        { eventType: 'InvoicePaid', eventSourceId: FEED, data: { invoice: 'INV-1' } },
        { eventType: 'InvoicePaid', eventSourceId: FEED, data: { invoice: 'INV-2' } },
      ],
    });
    const requests = await log.to(mock.info.eventUrl);
    expect(requests.map((r) => r.method)).toEqual(['POST', 'GET']);
    expect(requests.every((r) => r.origin === fixture.served.origin)).toBe(true);
  });

  it('writes batches in order with putAll, the next signed while the last is on the wire', async () => {
    const feed = `${FEED}-bulk`;
    const batches = [0, 1, 2].map((n) => [
      { eventType: 'InvoicePaid', eventSourceId: feed, data: { n, part: 'a' } },
      { eventType: 'InvoicePaid', eventSourceId: feed, data: { n, part: 'b' } },
    ]);
    const written = await page.evaluate((all) => window.eventApp.putAll(all), batches);
    expect(written).toEqual({
      ok: true,
      value: { batches: 3, events: 6, hasSetImmediate: false },
    });
    const back = await page.evaluate((name) => window.eventApp.read(name), feed);
    if (!back.ok) throw new Error(`read failed: ${JSON.stringify(back.error)}`);
    expect(back.value.map((event) => event.data)).toEqual(batches.flat().map((e) => e.data));
  });

  it('refuses a batch signed by a key the service does not trust (the signature is checked)', async () => {
    const stranger = rsaKeyPair();
    const refused = await page.evaluate(
      ([feed, pem]) =>
        window.eventApp.put([{ eventType: 'InvoicePaid', eventSourceId: feed }], pem),
      [FEED, stranger.privateKey] as const,
    );
    expect(refused).toMatchObject({
      ok: false,
      error: { name: 'ApiResponseError', status: 401, error: 'invalid_signature' },
    });
  });

  it('follows with long polling: an event written meanwhile arrives', async () => {
    const before = await read();
    if (!before.ok) throw new Error(`read failed: ${JSON.stringify(before.error)}`);
    const cursor = before.value.at(-1)!.eventReceived_str;

    const polling = page.waitForRequest(
      (request) =>
        request.url().startsWith(`${mock.info.eventUrl}/get/${FEED}?`) &&
        new URL(request.url()).searchParams.has('maxWaitMs'),
      { timeout: 10_000 },
    );
    await page.evaluate(([feed, after]) => window.eventApp.follow(feed, after), [
      FEED,
      cursor,
    ] as const);
    const request = await polling;
    expect(new URL(request.url()).searchParams.get('after')).toBe(cursor);

    // Written by another client (Node) while the page's long poll is out.
    const nodeWriter = createEventClient({
      eventUrl: mock.info.eventUrl,
      signer: { privateKey: writer.privateKey },
    });
    await nodeWriter.put({
      eventType: 'InvoicePaid',
      eventSourceId: FEED,
      data: { invoice: 'INV-3' },
    });

    await page.waitForFunction(() => window.eventApp.followed().length > 0, undefined, {
      timeout: 10_000,
    });
    const followed: EventReport[] = await page.evaluate(() => window.eventApp.followed());
    expect(followed).toMatchObject([{ eventType: 'InvoicePaid', data: { invoice: 'INV-3' } }]);
    expect(await page.evaluate(() => window.eventApp.followError())).toBeUndefined();
  });
});
