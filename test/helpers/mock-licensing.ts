// Shared setup of the SDK-against-mock-server tests: a real mock server on loopback, its roots,
// ID tokens from its issuer, admin helpers, and a counting fetch. Not a test file itself.
import { createServer } from 'node:net';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import {
  createLicensingClient,
  type LicensingClient,
  type LicensingClientOptions,
  type LicensingEventMap,
} from '@standby-licensing/sdk';

/** A running mock server plus the roots an app would embed. */
export interface MockLicensing {
  server: RunningServer;
  /** Root certificate of the standby signing key created by `POST /signing-keys`. */
  standbyRoot: { pem: string; keyId: string };
  /** Root of the main service's chain (last `x5c` entry of its JWKS). */
  mainRootPem: string;
  close(): Promise<void>;
}

function toPem(base64Der: string): string {
  const lines = base64Der.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Starts the mock server (active standby, admin API) and reads the roots to embed. */
export async function startMockLicensing(items?: string[]): Promise<MockLicensing> {
  const server = await startServer({
    port: 0,
    state: 'active',
    admin: true,
    ...(items ? { items } : {}),
  });
  const standbyRoot = await createSigningKey(server);
  const jwks = (await (await fetch(`${server.info.mainUrl}/.well-known/jwks.json`)).json()) as {
    keys: Array<{ x5c: string[] }>;
  };
  const mainRootPem = toPem(jwks.keys[0]!.x5c.at(-1)!);
  return { server, standbyRoot, mainRootPem, close: () => server.close() };
}

/** `POST <standby>/signing-keys`: a new default key; returns its root and key id. */
export async function createSigningKey(
  server: RunningServer,
): Promise<{ pem: string; keyId: string }> {
  const response = await fetch(`${server.info.standbyUrl}/signing-keys`, {
    method: 'POST',
    headers: { 'service-apikey': server.info.apiKey },
  });
  if (response.status !== 201) throw new Error(`signing-keys: ${response.status}`);
  const body = (await response.json()) as { keyId: string; rootCertificate: string };
  return { pem: body.rootCertificate, keyId: body.keyId };
}

/** Mints an ID token at the mock's issuer. */
export async function mintIdToken(server: RunningServer, sub = 'user-1', expiresInSeconds = 3600) {
  const response = await fetch(`${server.info.idpUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub, expiresInSeconds }),
  });
  return ((await response.json()) as { id_token: string }).id_token;
}

/** Admin: inject a fault on the main service. */
export async function setMainFault(
  server: RunningServer,
  fault: {
    mode: 'reset' | 'hang' | 'error' | 'delay';
    route?: string;
    status?: 500 | 503;
    count?: number;
  },
) {
  const response = await fetch(`${server.info.mainUrl.replace(/\/main$/, '')}/admin/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  if (response.status !== 201)
    throw new Error(`admin/faults: ${response.status} ${await response.text()}`);
}

/** Admin: clear every fault. */
export async function clearFaults(server: RunningServer) {
  await fetch(`${server.info.mainUrl.replace(/\/main$/, '')}/admin/faults`, { method: 'DELETE' });
}

/** Admin: reset every service (faults, clock, standby state/keys as the mock defines). */
export async function setClockOffset(server: RunningServer, offsetMs: number) {
  await fetch(`${server.info.mainUrl.replace(/\/main$/, '')}/admin/clock`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ offsetMs }),
  });
}

/** Management: enable (`/enabled`) or disable (`/disabled`) the standby. */
export async function setStandbyEnabled(server: RunningServer, enabled: boolean) {
  const response = await fetch(`${server.info.standbyUrl}/${enabled ? 'enabled' : 'disabled'}`, {
    method: 'POST',
    headers: { 'service-apikey': server.info.apiKey },
  });
  if (response.status !== 200) throw new Error(`standby state: ${response.status}`);
}

/** A loopback port nothing listens on (connections are refused). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A fetch that counts requests per service base URL. */
export function countingFetch(mock: MockLicensing) {
  const counts = { main: 0, standby: 0 };
  const fetchImpl: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith(mock.server.info.standbyUrl)) counts.standby++;
    else counts.main++;
    return fetch(input, init);
  };
  return { counts, fetch: fetchImpl };
}

/** Creates a client against the mock, recording events; options are merged over the defaults. */
export function clientFor(
  mock: MockLicensing,
  overrides: Partial<LicensingClientOptions> & { idToken?: () => string | Promise<string> } = {},
): { client: LicensingClient; seen: Array<keyof LicensingEventMap> } {
  const { idToken, ...rest } = overrides;
  const provider = idToken ?? (() => mintIdToken(mock.server));
  const client = createLicensingClient({
    mainUrl: mock.server.info.mainUrl,
    standbyUrl: mock.server.info.standbyUrl,
    auth: { idToken: provider },
    trust: { rootCertificates: [mock.standbyRoot, { pem: mock.mainRootPem }] },
    hardwareId: 'hw-1',
    version: '1.2.3',
    ...rest,
    // Fast retries for tests; the mock's 503 carries Retry-After: 30, capped here.
    failover: {
      backoffBaseMs: 5,
      backoffMaxMs: 20,
      retryAfterMaxMs: 20,
      attemptTimeoutMs: 1_000,
      ...rest.failover,
    },
  });
  const seen: Array<keyof LicensingEventMap> = [];
  for (const name of [
    'failover',
    'failback',
    'attemptFailed',
    'leaseRenewed',
    'idTokenGrace',
  ] as const) {
    client.on(name, () => seen.push(name));
  }
  return { client, seen };
}
