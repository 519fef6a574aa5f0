// The mock server for the network tests, over HTTP or real TLS with certificates the tests make:
// the CA an app trusts, a second CA it does not, and a certificate of the trusted CA for another
// host name. Set-up goes through `app.inject` (no network), so nothing here depends on the path
// under test.
import { createServer } from 'node:https';
import type { RunningServer } from '@standby-licensing/mock-server';
import type { TrustedRoot } from '@standby-licensing/sdk';
import { exportSPKI, generateKeyPair } from 'jose';
import {
  createDevCertificates,
  type DevCertificates,
} from '../../../mock-server/src/crypto/dev-cert.js';
import { startServer } from '../../../mock-server/src/server.js';

/** Certificates of the network tests. */
export interface NetworkPki {
  /** For localhost / 127.0.0.1 / ::1, issued by the CA the clients trust (`trusted.ca`). */
  trusted: DevCertificates;
  /** For the same names, issued by a CA no client trusts. */
  untrusted: DevCertificates;
  /** Issued by the trusted CA, but for `wrong.example` only. */
  wrongHost: DevCertificates;
}

/** Makes the three certificates of {@link NetworkPki} (ECDSA P-256, fresh CAs). */
export async function createNetworkPki(): Promise<NetworkPki> {
  const trusted = await createDevCertificates({ caName: 'network tests: trusted CA' });
  return {
    trusted,
    untrusted: await createDevCertificates({ caName: 'network tests: untrusted CA' }),
    wrongHost: await createDevCertificates({ ca: trusted.ca, hosts: ['wrong.example'] }),
  };
}

/** A running mock server with what a client needs to use it. */
export interface TestMock {
  server: RunningServer;
  /** `https` or `http`. */
  scheme: string;
  port: number;
  /** The roots a licensing client embeds: the standby's signing key root and main's root. */
  roots: TrustedRoot[];
  /** An ID token from the mock's issuer. */
  idToken(): Promise<string>;
  /** A read JWT for every feed from the mock's issuer. */
  readToken(): Promise<string>;
  /** The private key trusted to sign written events (RS256). */
  writerKey: CryptoKey;
  close(): Promise<void>;
}

function toPem(base64Der: string): string {
  const lines = base64Der.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Starts the mock (active standby, a standby signing key) over TLS with `tls`, else HTTP. */
export async function startTestMock(tls?: { cert: string; key: string }): Promise<TestMock> {
  const writer = await generateKeyPair('RS256', { extractable: true });
  const server = await startServer({
    port: 0,
    state: 'active',
    // Signing on the event loop: no worker threads for a handful of leases.
    signingThreads: 0,
    eventWriterKeys: [await exportSPKI(writer.publicKey)],
    ...(tls ? { tls: { cert: tls.cert, key: tls.key } } : {}),
  });
  const { app } = server;
  const created = await app.inject({
    method: 'POST',
    url: '/standby/signing-keys',
    headers: { 'service-apikey': server.info.apiKey },
  });
  if (created.statusCode !== 201) throw new Error(`signing-keys: ${created.statusCode}`);
  const key = created.json() as { keyId: string; rootCertificate: string };
  const jwks = (await app.inject({ url: '/main/.well-known/jwks.json' })).json() as {
    keys: Array<{ x5c: string[] }>;
  };
  const mint = async (claims?: Record<string, unknown>) => {
    const response = await app.inject({
      method: 'POST',
      url: '/idp/token',
      payload: { sub: 'user-1', expiresInSeconds: 3600, ...(claims ? { claims } : {}) },
    });
    return (response.json() as { id_token: string }).id_token;
  };
  const url = new URL(server.info.mainUrl);
  return {
    server,
    scheme: url.protocol.slice(0, -1),
    port: Number(url.port),
    roots: [
      { pem: key.rootCertificate, keyId: key.keyId },
      { pem: toPem(jwks.keys[0]!.x5c.at(-1)!) },
    ],
    idToken: () => mint(),
    readToken: () => mint({ '*': true }),
    writerKey: writer.privateKey,
    close: () => server.close(),
  };
}

/** A TLS server that only shakes hands: where a service with a bad certificate would be. */
export interface TlsOnlyServer {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** Starts an HTTPS server with `tls` that answers every request with a 503. */
export async function startTlsOnlyServer(tls: {
  cert: string;
  key: string;
}): Promise<TlsOnlyServer> {
  const server = createServer({ cert: tls.cert, key: tls.key }, (_request, response) => {
    response.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
