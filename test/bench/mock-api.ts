import type { ChildServer } from './child-server.js';

async function expectStatus(response: Response, status: number, what: string): Promise<void> {
  if (response.status !== status) {
    throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
  }
}

/** Mints a token at the mock's built-in issuer (`POST /idp/token`); `claims` are added as is. */
export async function mintToken(
  server: ChildServer,
  options: { sub?: string; expiresInSeconds?: number; claims?: Record<string, unknown> } = {},
): Promise<string> {
  const response = await fetch(`${server.info.idpUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      sub: options.sub ?? 'bench-user',
      expiresInSeconds: options.expiresInSeconds ?? 3600,
      ...(options.claims ? { claims: options.claims } : {}),
    }),
  });
  await expectStatus(response, 200, 'idp/token');
  return ((await response.json()) as { id_token: string }).id_token;
}

/** `POST <standby>/signing-keys`: a new default key; its root certificate and key id. */
export async function createSigningKey(
  server: ChildServer,
): Promise<{ pem: string; keyId: string }> {
  const response = await fetch(`${server.info.standbyUrl}/signing-keys`, {
    method: 'POST',
    headers: { 'service-apikey': server.info.apiKey },
  });
  await expectStatus(response, 201, 'signing-keys');
  const body = (await response.json()) as { keyId: string; rootCertificate: string };
  return { pem: body.rootCertificate, keyId: body.keyId };
}

/** Root certificate PEM of the main service's chain (last `x5c` entry of its JWKS). */
export async function mainRootPem(server: ChildServer): Promise<string> {
  const response = await fetch(`${server.info.mainUrl}/.well-known/jwks.json`);
  await expectStatus(response, 200, 'main jwks');
  const jwks = (await response.json()) as { keys: Array<{ x5c: string[] }> };
  const der = jwks.keys[0]!.x5c.at(-1)!;
  return `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Admin API: sets a fault on main routes (`POST /admin/faults`). */
export async function setMainFault(
  server: ChildServer,
  fault: { mode: 'reset' | 'hang' | 'error' | 'delay'; status?: 500 | 503; route?: string },
): Promise<void> {
  const response = await fetch(`${server.origin}/admin/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  await expectStatus(response, 201, 'admin/faults');
}

/** Admin API: clears every fault (`DELETE /admin/faults`). */
export async function clearFaults(server: ChildServer): Promise<void> {
  const response = await fetch(`${server.origin}/admin/faults`, { method: 'DELETE' });
  await expectStatus(response, 200, 'admin/faults delete');
}
