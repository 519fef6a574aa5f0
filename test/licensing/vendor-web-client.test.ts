// 10Duke's public web client (`@10duke/web-client-pkce`, its `LicenseChecker`) against the mock
// main, over real HTTP: this file sends exactly what that client sends and reads the answers the
// way it does (read from its public sources; none of its code is used here):
//   - consume: `POST <authz>.jwt?<item>=&hw=<hw>` with `Authorization: Bearer <token>`,
//     `Content-Type: application/x-www-form-urlencoded`, `cache: no-cache` and no body; the answer
//     is one JWT, verified with RS256 against `keys[0]` of the JWKS (fetched without credentials);
//     the item is licensed when the payload has `<item>: true` (`hasLicense`);
//   - release: `POST <authz>.json?release=true&<leaseId>=&hw=<hw>`, same headers; the answer is
//     JSON, released when it has `<leaseId>: true` (`isReleased`).
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HW = 'browser-1a2b';

/** What the vendor client builds: `authzUri` + `.jwt` / `.json`, parameters appended in order. */
function vendorUrl(authzUri: string, suffix: '.jwt' | '.json', params: [string, string][]): URL {
  const url = new URL(authzUri);
  const query = url.searchParams;
  for (const [name, value] of params) query.append(name, value);
  url.search = query.toString();
  url.pathname = `${url.pathname}${suffix}`;
  return url;
}

/** The vendor client's request: POST, Bearer, form content type, no body, no-cache. */
function vendorPost(url: URL, accessToken: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    cache: 'no-cache',
    headers: {
      Authorization: `Bearer ${accessToken}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
  });
}

/** Verifies an RS256 JWS with the first JWK of the JWKS, as the vendor client does; payload. */
async function verifyWithFirstKey(
  token: string,
  jwksUrl: string,
): Promise<Record<string, unknown>> {
  const response = await fetch(jwksUrl, { method: 'GET' });
  expect(response.ok).toBe(true);
  const { keys } = (await response.json()) as { keys: JsonWebKey[] };
  const key = await crypto.subtle.importKey(
    'jwk',
    keys[0]!,
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const verified = await crypto.subtle.verify(
    'RSASSA-PKCS1-v1_5',
    key,
    Buffer.from(signature, 'base64url'),
    new TextEncoder().encode(`${header}.${payload}`),
  );
  if (!verified) throw new Error('license_token_verification_failed');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}

describe("the vendor's web client (LicenseChecker) against the mock main", () => {
  let mock: RunningServer;
  let authzUri: string;
  let jwksUrl: string;
  let accessToken: string;

  beforeAll(async () => {
    // The catalogue has Basic only: Pro needs a provisioned license.
    mock = await startServer({ port: 0, admin: true, items: ['Basic'] });
    authzUri = `${mock.info.mainUrl}/authz/`;
    jwksUrl = `${mock.info.mainUrl}/.well-known/jwks.json`;
    const minted = await fetch(`${mock.info.idpUrl}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sub: 'web-user' }),
    });
    accessToken = ((await minted.json()) as { id_token: string }).id_token;
  });
  afterAll(() => mock.close());

  const consume = async (item: string) => {
    const response = await vendorPost(
      vendorUrl(authzUri, '.jwt', [
        [item, ''],
        ['hw', HW],
      ]),
      accessToken,
    );
    expect(response.status).toBe(200);
    return verifyWithFirstKey(await response.text(), jwksUrl);
  };

  it('consumes a catalogue item: a verified token with <item>: true and a lease id in jti', async () => {
    const result = await consume('Basic');
    expect(result.Basic).toBe(true);
    expect(result).toMatchObject({ sub: 'web-user', hw: HW });
    expect(typeof result.jti).toBe('string');
  });

  it('is denied an item without a license: <item>_errorCode, no <item>: true', async () => {
    const result = await consume('Pro');
    expect(result.Pro).toBeUndefined();
    expect(result.Pro_errorCode).toBe('noLicenseFound');
    expect(typeof result.Pro_errorMessage).toBe('string');
  });

  it('consumes a provisioned license (lic = its id), and is denied again once it is revoked', async () => {
    const provisioned = await fetch(
      `${mock.info.mainUrl.replace(/\/main$/, '/admin')}/main/licenses`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ sub: 'web-user', item: 'Pro' }),
      },
    );
    expect(provisioned.status).toBe(201);
    const { licenseId } = (await provisioned.json()) as { licenseId: string };
    const granted = await consume('Pro');
    expect(granted).toMatchObject({ Pro: true, lic: licenseId });
    const revoked = await fetch(
      `${mock.info.mainUrl.replace(/\/main$/, '/admin')}/main/licenses/${licenseId}`,
      { method: 'DELETE' },
    );
    expect(revoked.status).toBe(204);
    expect((await consume('Pro')).Pro_errorCode).toBe('noLicenseFound');
  });

  it('releases through the JSON form: { <leaseId>: true }', async () => {
    const { jti } = await consume('Basic');
    const leaseId = String(jti);
    const url = vendorUrl(authzUri, '.json', [
      ['release', 'true'],
      [leaseId, ''],
      ['hw', HW],
    ]);
    expect(url.pathname).toBe('/main/authz/.json');
    const response = await vendorPost(url, accessToken);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const result = (await response.json()) as Record<string, unknown>;
    expect(result[leaseId]).toBe(true);
    expect(result).toMatchObject({ sub: 'web-user', iss: mock.info.mainUrl });
  });

  it('pointed at the standby, its release gets 404: the standby has no JSON form', async () => {
    const url = vendorUrl(`${mock.info.standbyUrl}/authz/`, '.json', [
      ['release', 'true'],
      ['J1', ''],
    ]);
    const response = await vendorPost(url, accessToken);
    expect(response.status).toBe(404);
  });
});
