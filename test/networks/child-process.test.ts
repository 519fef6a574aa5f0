// "Done when" of the networks issue: an app in a Node child process with only HTTPS_PROXY set
// (and the test CA through `tls.ca` or NODE_EXTRA_CA_CERTS) checks out through tinyproxy from the
// mock over HTTPS, reads a feed, and fails over to the standby when main's certificate is signed
// by a CA it does not trust.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevCertificates } from '../../mock-server/src/dev-cert.js';
import { putJson } from '../helpers/mock-server/events.js';
import { firstLine, runNode } from '../helpers/networks/node-process.js';
import { startTinyproxy, type Tinyproxy } from '../helpers/networks/tinyproxy.js';
import {
  createNetworkPki,
  type NetworkPki,
  startTestMock,
  startTlsOnlyServer,
  type TestMock,
  type TlsOnlyServer,
} from '../helpers/networks/tls-mock.js';
import { skipWithout, TINYPROXY } from '../helpers/system-tools.js';

const APP = 'test/networks/fixtures/proxied-app.ts';
const SOURCE = 'billing';

const noTinyproxy = skipWithout(TINYPROXY, 'test/networks/child-process.test.ts');

describe.skipIf(noTinyproxy)('an app in a child process behind a proxy', () => {
  let pki: NetworkPki;
  let mock: TestMock;
  let untrusted: TlsOnlyServer;
  let proxy: Tinyproxy;
  let dir: string;
  let config: Record<string, unknown>;

  beforeAll(async () => {
    pki = await createNetworkPki();
    mock = await startTestMock(pki.trusted);
    untrusted = await startTlsOnlyServer(pki.untrusted);
    proxy = await startTinyproxy({ connectPorts: [mock.port, untrusted.port] });
    dir = await mkdtemp(join(tmpdir(), 'proxied-app-'));
    await writeFile(join(dir, 'ca.pem'), pki.trusted.ca.certificate);
    const status = await putJson(mock.server.app, [
      { eventType: 'Tick', eventSourceId: SOURCE, data: { n: 1 } },
      { eventType: 'Tick', eventSourceId: SOURCE, data: { n: 2 } },
    ]);
    expect(status).toBe(201);
    config = {
      mainUrl: mock.server.info.mainUrl,
      untrustedMainUrl: `${untrusted.origin}/main`,
      standbyUrl: mock.server.info.standbyUrl,
      eventUrl: mock.server.info.eventUrl,
      roots: mock.roots,
      idToken: await mock.idToken(),
      readToken: await mock.readToken(),
      source: SOURCE,
    };
  });
  afterAll(async () => {
    await Promise.all([proxy?.close(), untrusted?.close(), mock?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  async function runApp(env: Record<string, string>, ca?: string) {
    const before = (await proxy.logLines()).length;
    const run = runNode([APP, JSON.stringify({ ...config, ...(ca ? { ca } : {}) })], env);
    const result = JSON.parse(await firstLine(run));
    expect(await run.exit).toBe(0);
    return { result, proxyLog: (await proxy.logLines()).slice(before).join('\n') };
  }

  it.each<[string, () => Promise<[Record<string, string>, string | undefined]>]>([
    [
      'the CA given as tls.ca',
      async () => [{ HTTPS_PROXY: proxy.url }, pki.trusted.ca.certificate],
    ],
    [
      'the CA in NODE_EXTRA_CA_CERTS',
      async () => [{ HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') }, undefined],
    ],
    [
      'NODE_EXTRA_CA_CERTS still honoured beside a tls.ca of another CA',
      async () => [
        { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
        (await createDevCertificates({ caName: 'some other CA' })).ca.certificate,
      ],
    ],
  ])('checks out, reads a feed and fails over, with %s', async (_name, setup) => {
    const [env, ca] = await setup();
    const { result, proxyLog } = await runApp(env, ca);
    expect(result).toEqual({
      checkout: { servedBy: ['main'], events: [] },
      feed: [{ n: 1 }, { n: 2 }],
      failover: { servedBy: ['standby'], events: ['main:tls', 'failover:standby'] },
      // Nothing else: the proxy came from HTTPS_PROXY alone.
      env: Object.keys(env).sort(),
    });
    // Every service was reached through the proxy: tunnels to the mock and to the bad main.
    expect(proxyLog).toContain(`CONNECT 127.0.0.1:${mock.port} HTTP/1.1`);
    expect(proxyLog).toContain(`CONNECT 127.0.0.1:${untrusted.port} HTTP/1.1`);
  });

  it('cannot reach anything without the CA: every attempt fails the TLS check', async () => {
    const run = runNode([APP, JSON.stringify(config)], { HTTPS_PROXY: proxy.url });
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toMatch(/SERVICE_UNAVAILABLE|reason: 'tls'/);
    expect(run.stderr()).toContain('NODE_EXTRA_CA_CERTS');
  });
});
