// Telling the network from the service, with real parts: a proxy that is down, one that wants
// credentials (407), one that refuses the destination (403 to CONNECT), a certificate from an
// unknown CA, one for another host, an expired one. Each is an outage of that service (failover
// applies); when every attempt failed that way, the final SERVICE_UNAVAILABLE says `proxy` or
// `tls` and what to check. The event client's errors carry the same reasons.
import {
  createEventClient,
  createLicensingClient,
  type LicensingClientOptions,
  type LicensingError,
} from '@standby-licensing/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevCertificates } from '../../mock-server/src/dev-cert.js';
import { closedPort } from '../helpers/mock-licensing.js';
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

const DAY_MS = 86_400_000;
const PROXY_ADVICE =
  /check the proxy settings \(HTTPS_PROXY, HTTP_PROXY, NO_PROXY, or the `proxy` option\)/;
const TLS_ADVICE = /add its CA certificate with the `tls\.ca` option or NODE_EXTRA_CA_CERTS/;

const noTinyproxy = skipWithout(TINYPROXY, 'test/networks/failure-reasons.test.ts');

describe.skipIf(noTinyproxy)('failures on the way to a service', () => {
  let pki: NetworkPki;
  let mock: TestMock;
  let untrusted: TlsOnlyServer;
  let wrongHost: TlsOnlyServer;
  let expired: TlsOnlyServer;
  let proxy: Tinyproxy;
  let authProxy: Tinyproxy;
  let narrowProxy: Tinyproxy;
  let deadProxy: string;

  beforeAll(async () => {
    pki = await createNetworkPki();
    const old = await createDevCertificates({
      ca: pki.trusted.ca,
      now: Date.now() - 40 * DAY_MS,
      validDays: 30,
    });
    mock = await startTestMock(pki.trusted);
    [untrusted, wrongHost, expired] = await Promise.all([
      startTlsOnlyServer(pki.untrusted),
      startTlsOnlyServer(pki.wrongHost),
      startTlsOnlyServer(old),
    ]);
    const ports = [mock.port, untrusted.port, wrongHost.port, expired.port];
    // One after the other: a proxy that started is closed by afterAll even if the next fails.
    proxy = await startTinyproxy({ connectPorts: ports });
    authProxy = await startTinyproxy({
      connectPorts: ports,
      basicAuth: { user: 'bob', password: 'builder' },
    });
    // CONNECT only to a port nothing uses: the proxy refuses every destination here.
    narrowProxy = await startTinyproxy({ connectPorts: [await closedPort()] });
    deadProxy = `http://127.0.0.1:${await closedPort()}`;
  });
  afterAll(async () => {
    await Promise.all(
      [mock, untrusted, wrongHost, expired, proxy, authProxy, narrowProxy].map((part) =>
        part?.close(),
      ),
    );
  });

  /** A client for the mock's services, or `main` / `standby` at another origin. */
  function clientFor(
    extra: Partial<LicensingClientOptions> & { mainOrigin?: string; standbyOrigin?: string } = {},
  ) {
    const { mainOrigin, standbyOrigin, ...options } = extra;
    const events: string[] = [];
    const client = createLicensingClient({
      mainUrl: mainOrigin ? `${mainOrigin}/main` : mock.server.info.mainUrl,
      standbyUrl: standbyOrigin ? `${standbyOrigin}/standby` : mock.server.info.standbyUrl,
      auth: { idToken: mock.idToken },
      trust: { rootCertificates: mock.roots },
      failover: { mainAttempts: 2, backoffBaseMs: 5, backoffMaxMs: 20 },
      tls: { ca: pki.trusted.ca.certificate },
      proxy: false,
      ...options,
      on: {
        attemptFailed: (event) => events.push(`${event.service}:${event.reason}`),
        failover: (event) => events.push(`failover:${event.to}`),
      },
    });
    return { client, events };
  }

  async function checkoutError(client: ReturnType<typeof clientFor>['client']) {
    const error = (await client.checkout(['ItemA']).catch((e: unknown) => e)) as LicensingError;
    await client.close();
    return error;
  }

  describe.each<[string, () => Partial<LicensingClientOptions>, RegExp]>([
    [
      'an unreachable proxy',
      () => ({ proxy: deadProxy }),
      /the proxy is unreachable \(ECONNREFUSED\)/,
    ],
    [
      'a proxy host that does not resolve',
      () => ({ proxy: `http://no-such-proxy.invalid:3128` }),
      /the proxy is unreachable \((ENOTFOUND|EAI_AGAIN)\)/,
    ],
    [
      'a proxy that wants credentials (407)',
      () => ({ proxy: authProxy.url }),
      /requires authentication \(HTTP 407\)/,
    ],
    [
      'a proxy that refuses the destination (403)',
      () => ({ proxy: narrowProxy.url }),
      /refused to forward .*\(HTTP 403\)/,
    ],
  ])('%s', (_name, options, detail) => {
    it('fails every attempt over to the standby, then SERVICE_UNAVAILABLE with reason proxy', async () => {
      const { client, events } = clientFor(options());
      const error = await checkoutError(client);
      expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'proxy' });
      expect(error.message).toMatch(detail);
      expect(error.message).toMatch(PROXY_ADVICE);
      expect(error.message).not.toMatch(/bob|builder/);
      // Each attempt's own message, in the cause, ends with what to do about it.
      for (const attempt of (error.cause as AggregateError).errors) {
        expect((attempt as Error).message).toMatch(/\. (Check|Put|Ask) [\s\S]*\.$/);
      }
      // Both main attempts, then the standby: the proxy is an outage of each service.
      expect(events).toEqual(['main:proxy', 'main:proxy', 'standby:proxy']);
    });
  });

  describe.each<[string, () => string, RegExp]>([
    [
      'a certificate from an unknown CA',
      () => untrusted.origin,
      /is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE/,
    ],
    [
      'a certificate for another host',
      () => wrongHost.origin,
      /is for another host name \(ERR_TLS_CERT_ALTNAME_INVALID/,
    ],
    ['an expired certificate', () => expired.origin, /is outside its validity \(CERT_HAS_EXPIRED/],
  ])('%s', (_name, origin, detail) => {
    it('is reason tls when every attempt failed the check, directly and through the proxy', async () => {
      for (const via of [{ proxy: false as const }, { proxy: proxy.url }]) {
        const { client, events } = clientFor({
          ...via,
          mainOrigin: origin(),
          standbyOrigin: origin(),
        });
        const error = await checkoutError(client);
        expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'tls' });
        expect(error.message).toMatch(detail);
        expect(error.message).toMatch(TLS_ADVICE);
        expect(events).toEqual(['main:tls', 'main:tls', 'standby:tls']);
      }
    });

    it('fails over to a standby whose certificate is good', async () => {
      const { client, events } = clientFor({ proxy: proxy.url, mainOrigin: origin() });
      const { leases } = await client.checkout(['ItemA']);
      expect(leases.map((lease) => lease.servedBy)).toEqual(['standby']);
      expect(events).toEqual(['main:tls', 'main:tls', 'failover:standby']);
      await client.close();
    });
  });

  it('says no network reason when the attempts failed in different ways', async () => {
    const { client, events } = clientFor({
      mainOrigin: untrusted.origin,
      standbyOrigin: `https://127.0.0.1:${await closedPort()}`,
    });
    const error = await checkoutError(client);
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.reason).toBeUndefined();
    expect(error.message).toMatch(/Retry later; if it persists, check `mainUrl`, `standbyUrl`/);
    expect(events).toEqual(['main:tls', 'main:tls', 'standby:connection-refused']);
  });

  it('gives a call only main serves the same reasons (checkoutProducts)', async () => {
    for (const [options, reason] of [
      [{ proxy: deadProxy }, 'proxy'],
      [{ mainOrigin: untrusted.origin }, 'tls'],
    ] as const) {
      const { client } = clientFor(options);
      const error = (await client
        .checkoutProducts([{ productName: 'P1', qty: 1, qtyDimension: 'SEATS' }])
        .catch((e: unknown) => e)) as LicensingError;
      await client.close();
      expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason });
      expect(error.message).toMatch(
        /^The main licensing service failed \(only main serves this call\)/,
      );
      expect(error.message).toMatch(reason === 'proxy' ? PROXY_ADVICE : TLS_ADVICE);
    }
  });

  it('gives the event client’s errors the same reasons', async () => {
    const events = (extra: Record<string, unknown>, eventUrl = mock.server.info.eventUrl) =>
      createEventClient({
        eventUrl,
        auth: { token: mock.readToken },
        signer: { privateKey: mock.writerKey },
        tls: { ca: pki.trusted.ca.certificate },
        ...extra,
      });
    const read = (client: ReturnType<typeof events>) =>
      client.collect('billing', { limit: 1 }).catch((e: unknown) => e as LicensingError);
    const put = (client: ReturnType<typeof events>) =>
      client
        .put({ eventType: 'Tick', eventSourceId: 'billing' })
        .then(() => undefined)
        .catch((e: unknown) => e as LicensingError);

    for (const client of [
      events({ proxy: deadProxy }),
      events({ proxy: authProxy.url }),
      events({ proxy: narrowProxy.url }),
    ]) {
      for (const error of [await read(client), await put(client)]) {
        expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'proxy' });
        expect((error as Error).message).toMatch(
          /HTTPS_PROXY, HTTP_PROXY or the `proxy` option|Ask the network administrator|Check the proxy settings/,
        );
      }
    }
    for (const origin of [untrusted.origin, wrongHost.origin, expired.origin]) {
      const client = events({ proxy: proxy.url }, `${origin}/events`);
      for (const error of [await read(client), await put(client)]) {
        expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'tls' });
      }
    }
    // The same client reads and writes once nothing is in the way.
    const good = events({ proxy: proxy.url });
    expect(await put(good)).toBeUndefined();
    expect(await read(good)).toHaveLength(1);
  });
});
