// The event client through a real proxy (tinyproxy): put, read and follow, over TLS (CONNECT)
// and over HTTP (forwarded, every request line in the proxy's log), the proxy from the `proxy`
// option and from HTTPS_PROXY.
import { createEventClient, type EventClientOptions } from '@standby-licensing/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTinyproxy, type Tinyproxy } from '../helpers/networks/tinyproxy.js';
import {
  createNetworkPki,
  type NetworkPki,
  startTestMock,
  type TestMock,
} from '../helpers/networks/tls-mock.js';
import { skipWithout, TINYPROXY } from '../helpers/system-tools.js';

const noTinyproxy = skipWithout(TINYPROXY, 'test/networks/proxy-events.test.ts');

describe.skipIf(noTinyproxy)('the event client through tinyproxy', () => {
  let pki: NetworkPki;
  let secure: TestMock;
  let plain: TestMock;
  let proxy: Tinyproxy;

  beforeAll(async () => {
    pki = await createNetworkPki();
    [secure, plain] = await Promise.all([startTestMock(pki.trusted), startTestMock()]);
    proxy = await startTinyproxy({
      connectPorts: [secure.port],
      basicAuth: { user: 'reader', password: 'feeds-2030' },
    });
  });
  afterAll(async () => {
    await Promise.all([proxy?.close(), secure?.close(), plain?.close()]);
  });
  afterEach(() => vi.unstubAllEnvs());

  const clientFor = (mock: TestMock, extra: Partial<EventClientOptions> = {}) =>
    createEventClient({
      eventUrl: mock.server.info.eventUrl,
      auth: { token: mock.readToken },
      signer: { privateKey: mock.writerKey },
      ...(mock.scheme === 'https' ? { tls: { ca: pki.trusted.ca.certificate } } : {}),
      ...extra,
    });

  /** put, read, then follow an event put after the follow started. */
  async function exercise(client: ReturnType<typeof clientFor>, source: string) {
    await client.put([
      { eventType: 'Tick', eventSourceId: source, data: { n: 1 } },
      { eventType: 'Tick', eventSourceId: source, data: { n: 2 } },
    ]);
    const read = await client.collect(source, { limit: 10 });
    const controller = new AbortController();
    const followed: unknown[] = [];
    const following = (async () => {
      for await (const event of client.follow(source, {
        maxWaitMs: 5_000,
        signal: controller.signal,
      })) {
        followed.push(event.data);
        if (followed.length === 3) controller.abort(new Error('done'));
      }
    })().catch((error: unknown) => {
      if ((error as Error).message !== 'done') throw error;
    });
    await client.put({ eventType: 'Tick', eventSourceId: source, data: { n: 3 } });
    await following;
    return { read: read.map((event) => event.data), followed };
  }

  const expected = { read: [{ n: 1 }, { n: 2 }], followed: [{ n: 1 }, { n: 2 }, { n: 3 }] };

  it('puts, reads and follows over TLS through a CONNECT tunnel', async () => {
    const before = (await proxy.logLines()).length;
    const result = await exercise(clientFor(secure, { proxy: proxy.urlWithCredentials }), 'tls');
    expect(result).toEqual(expected);
    const lines = (await proxy.logLines()).slice(before);
    expect(lines.some((line) => line.includes(`CONNECT 127.0.0.1:${secure.port} HTTP/1.1`))).toBe(
      true,
    );
  });

  it('puts, reads and follows over HTTP, each request forwarded by the proxy', async () => {
    vi.stubEnv('HTTP_PROXY', proxy.urlWithCredentials);
    const before = (await proxy.logLines()).length;
    expect(await exercise(clientFor(plain), 'plain')).toEqual(expected);
    const requests = (await proxy.logLines())
      .slice(before)
      .map((line) => /Request \(file descriptor \d+\): (\S+ \S+)/.exec(line)?.[1])
      .filter((request) => request !== undefined);
    const base = `http://127.0.0.1:${plain.port}/events`;
    expect(requests.filter((r) => r === `POST ${base}/put`)).toHaveLength(2);
    expect(requests.some((r) => r.startsWith(`GET ${base}/get/plain?`))).toBe(true);
    expect(requests.some((r) => /maxWaitMs=5000/.test(r))).toBe(true);
  });
});
