// The licensing client through a real proxy (tinyproxy): plain forwarding for an http service
// (the proxy logs every request line), CONNECT tunnels for an https one, Basic authentication,
// the environment variables as curl reads them (HTTPS_PROXY, NO_PROXY) and `proxy: false`.
import {
  createLicensingClient,
  type LicensingClientOptions,
  type LicensingError,
} from '@standby-licensing/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { closedPort } from '../helpers/mock-licensing.js';
import { startTinyproxy, type Tinyproxy } from '../helpers/networks/tinyproxy.js';
import {
  createNetworkPki,
  type NetworkPki,
  startTestMock,
  type TestMock,
} from '../helpers/networks/tls-mock.js';
import { skipWithout, TINYPROXY } from '../helpers/system-tools.js';

const USER = 'alice';
// tinyproxy's BasicAuth takes letters, digits and -._ only.
const PASSWORD = 's3cret-pa.ss_1';

const noTinyproxy = skipWithout(TINYPROXY, 'test/networks/proxy-licensing.test.ts');

describe.skipIf(noTinyproxy)('the licensing client through tinyproxy', () => {
  let pki: NetworkPki;
  let secure: TestMock;
  let plain: TestMock;
  let proxy: Tinyproxy;
  let authProxy: Tinyproxy;

  beforeAll(async () => {
    pki = await createNetworkPki();
    [secure, plain] = await Promise.all([startTestMock(pki.trusted), startTestMock()]);
    // One after the other: a proxy that started is closed by afterAll even if the next fails.
    proxy = await startTinyproxy({ connectPorts: [secure.port] });
    authProxy = await startTinyproxy({
      connectPorts: [secure.port],
      basicAuth: { user: USER, password: PASSWORD },
    });
  });
  afterAll(async () => {
    await Promise.all([proxy?.close(), authProxy?.close(), secure?.close(), plain?.close()]);
  });
  afterEach(() => vi.unstubAllEnvs());

  function clientFor(mock: TestMock, extra: Partial<LicensingClientOptions> = {}) {
    return createLicensingClient({
      mainUrl: mock.server.info.mainUrl,
      standbyUrl: mock.server.info.standbyUrl,
      auth: { idToken: mock.idToken },
      trust: { rootCertificates: mock.roots },
      failover: { mainAttempts: 1, backoffBaseMs: 5, backoffMaxMs: 20 },
      ...(mock.scheme === 'https' ? { tls: { ca: pki.trusted.ca.certificate } } : {}),
      ...extra,
    });
  }

  /** Checkout (with the JWKS that verifies it), renew and release; the leases' services. */
  async function roundTrip(client: ReturnType<typeof clientFor>) {
    const { leases } = await client.checkout(['ItemA']);
    const renewed = await client.renew(leases[0]!);
    await client.release(renewed);
    await client.close();
    return [leases[0]!.servedBy, renewed.servedBy];
  }

  const newLines = async (of: Tinyproxy, since: number) => (await of.logLines()).slice(since);

  it('forwards each request to an http service: checkout, JWKS, renew and release in its log', async () => {
    const before = (await proxy.logLines()).length;
    expect(await roundTrip(clientFor(plain, { proxy: proxy.url }))).toEqual(['main', 'main']);
    const requests = (await newLines(proxy, before))
      .map((line) => /Request \(file descriptor \d+\): (\S+ \S+)/.exec(line)?.[1])
      .filter((request) => request !== undefined)
      .map((request) => request.replace(/\?.*$/, ''));
    const base = `http://127.0.0.1:${plain.port}/main`;
    // The checkout and the renewal share /authz/.jwt (GET with the item, POST with the lease).
    expect(requests).toContain(`GET ${base}/authz/.jwt`);
    expect(requests).toContain(`GET ${base}/.well-known/jwks.json`);
    expect(requests.filter((r) => r.endsWith('/authz/.jwt')).length).toBeGreaterThanOrEqual(3);
    expect(requests.every((r) => r.includes(`127.0.0.1:${plain.port}/main/`))).toBe(true);
  });

  it('tunnels HTTPS with CONNECT: checkout, renew and release over TLS, leases verified', async () => {
    const before = (await proxy.logLines()).length;
    expect(await roundTrip(clientFor(secure, { proxy: proxy.url }))).toEqual(['main', 'main']);
    const lines = await newLines(proxy, before);
    expect(lines.some((line) => line.includes(`CONNECT 127.0.0.1:${secure.port} HTTP/1.1`))).toBe(
      true,
    );
    // Nothing went out in the clear: every request through this proxy was a tunnel.
    expect(lines.filter((line) => /Request .*: (GET|POST) /.test(line))).toEqual([]);
  });

  it('takes the proxy from HTTPS_PROXY, and stops when that proxy is down', async () => {
    vi.stubEnv('HTTPS_PROXY', proxy.url);
    const before = (await proxy.logLines()).length;
    expect(await roundTrip(clientFor(secure))).toEqual(['main', 'main']);
    expect((await newLines(proxy, before)).join('\n')).toContain(
      `CONNECT 127.0.0.1:${secure.port}`,
    );

    vi.stubEnv('HTTPS_PROXY', `http://127.0.0.1:${await closedPort()}`);
    const error = (await clientFor(secure)
      .checkout(['ItemA'])
      .catch((e: unknown) => e)) as LicensingError;
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'proxy' });
  });

  it('reads https_proxy before HTTPS_PROXY, as curl does', async () => {
    vi.stubEnv('HTTPS_PROXY', `http://127.0.0.1:${await closedPort()}`);
    vi.stubEnv('https_proxy', proxy.url);
    expect(await roundTrip(clientFor(secure))).toEqual(['main', 'main']);
  });

  it('connects directly to hosts NO_PROXY lists, and `proxy: false` ignores the environment', async () => {
    vi.stubEnv('HTTPS_PROXY', `http://127.0.0.1:${await closedPort()}`);
    vi.stubEnv('HTTP_PROXY', `http://127.0.0.1:${await closedPort()}`);
    for (const noProxy of ['127.0.0.1', '127.0.0.0/8', 'localhost,127.0.0.1', '*']) {
      vi.stubEnv('NO_PROXY', noProxy);
      expect(await roundTrip(clientFor(secure))).toEqual(['main', 'main']);
      expect(await roundTrip(clientFor(plain))).toEqual(['main', 'main']);
    }
    vi.stubEnv('NO_PROXY', 'licensing.example,127.0.0.2');
    await expect(clientFor(secure).checkout(['ItemA'])).rejects.toMatchObject({ reason: 'proxy' });
    vi.stubEnv('NO_PROXY', '');
    expect(await roundTrip(clientFor(secure, { proxy: false }))).toEqual(['main', 'main']);
    expect(await roundTrip(clientFor(plain, { proxy: false }))).toEqual(['main', 'main']);
  });

  it('authenticates to a proxy with Basic credentials from the proxy URL', async () => {
    const before = (await authProxy.logLines()).length;
    expect(await roundTrip(clientFor(secure, { proxy: authProxy.urlWithCredentials }))).toEqual([
      'main',
      'main',
    ]);
    expect(await roundTrip(clientFor(plain, { proxy: authProxy.urlWithCredentials }))).toEqual([
      'main',
      'main',
    ]);
    vi.stubEnv('HTTPS_PROXY', authProxy.urlWithCredentials);
    expect(await roundTrip(clientFor(secure))).toEqual(['main', 'main']);
    const lines = (await newLines(authProxy, before)).join('\n');
    expect(lines).toContain(`CONNECT 127.0.0.1:${secure.port}`);
    expect(lines).toContain(`GET http://127.0.0.1:${plain.port}/main/authz/.jwt`);
    // The password is the proxy's business: it never reaches the service's log line.
    expect(lines).not.toContain(PASSWORD);
  });

  it.each([
    // tinyproxy 1.11 answers missing credentials with 407, wrong ones with 401.
    ['no credentials', (p: Tinyproxy) => p.url, () => [secure, plain], 407],
    [
      'a wrong password',
      (p: Tinyproxy) => p.url.replace('//', `//${USER}:wrong@`),
      () => [secure],
      401,
    ],
  ])('reports a proxy refusing %s as the proxy in the way', async (_name, urlOf, mocks, status) => {
    for (const mock of mocks()) {
      const events: string[] = [];
      const client = clientFor(mock, { proxy: urlOf(authProxy) });
      client.on('attemptFailed', (event) => events.push(`${event.service}:${event.reason}`));
      const error = (await client.checkout(['ItemA']).catch((e: unknown) => e)) as LicensingError;
      expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'proxy' });
      expect(error.message).toContain(`requires authentication (HTTP ${status})`);
      expect(error.message).toMatch(/check the proxy settings \(HTTPS_PROXY/);
      expect(events).toEqual(['main:proxy', 'standby:proxy']);
      await client.close();
    }
  });
});
