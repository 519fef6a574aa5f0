import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPECT_JSON, expectTokens } from './classify-outcome.js';
import { FailedAttempt } from './failed-attempt.js';
import { requestJwks } from './jwks-request.js';
import { createLicensingTransport, type LicensingTransport } from './licensing-transport.js';

// Bodies by path, answered 200 by a real server on loopback; the main and standby URLs both
// point at it.
const BODIES: Record<string, [contentType: string, body: string]> = {
  '/object': ['application/json', '{"a":[1,2]}'],
  '/null': ['application/json', 'null'],
  '/jwt': ['application/jwt', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'],
  '/keys/.well-known/jwks.json': ['application/json', '{"keys":[]}'],
  '/no-keys/.well-known/jwks.json': ['application/json', '{"key":[]}'],
  '/null-keys/.well-known/jwks.json': ['application/json', 'null'],
};

let server: Server;
let origin: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    // A standby that knows one signing key, 'standby-key'.
    if (request.url === '/standby/authz/.jwt') {
      const keyId = request.headers['service-signingkeyid'];
      if (keyId === undefined || keyId === 'standby-key') {
        response.writeHead(200, { 'content-type': 'application/jwt' }).end(BODIES['/jwt']![1]);
      } else {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"error":"unknown_signing_key","error_description":"names no key"}');
      }
      return;
    }
    const answer = BODIES[request.url ?? ''];
    if (!answer) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': answer[0] }).end(answer[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function transportAt(base = '', signingKeyIds: string[] = []): LicensingTransport {
  return createLicensingTransport({
    mainUrl: `${origin}${base}`,
    standbyUrl: `${origin}${base}`,
    fetch: (input, init) => fetch(input, init),
    now: Date.now,
    attemptTimeoutMs: 2000,
    signingKeyIdHeader: 'Service-SigningKeyId',
    signingKeyIds,
    credentials: { authorization: async () => 'IdToken test', refreshable: false },
  });
}

describe('the signing key id sent to the standby', () => {
  const authz = { path: '/authz/.jwt', expect: expectTokens(1), signingKey: true };

  it('moves on to the next key id when the standby knows none of that id, and stays there', async () => {
    const transport = transportAt('/standby', ['main-key', 'old-key', 'standby-key', 'later']);
    expect(transport.signingKeyId).toBe('main-key');
    expect((await transport.request('standby', authz)).value).toHaveLength(1);
    expect(transport.signingKeyId).toBe('standby-key');
    expect((await transport.request('standby', authz)).value).toHaveLength(1);
    expect(transport.signingKeyId).toBe('standby-key');
  });

  it("keeps the standby's refusal when no key id is left, and never moves past the last", async () => {
    const transport = transportAt('/standby', ['main-key', 'old-key']);
    const error = await transport.request('standby', authz).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FailedAttempt);
    expect((error as FailedAttempt).verdict.error).toMatchObject({
      code: 'REQUEST_REJECTED',
      error: 'unknown_signing_key',
    });
    expect(transport.signingKeyId).toBe('old-key');
  });

  it('sends no key id to main, nor with requests that do not ask for one', async () => {
    const transport = transportAt('/standby', ['main-key']);
    // Main at the same address: no header, so the "standby" answers.
    expect((await transport.request('main', authz)).value).toHaveLength(1);
    expect(
      (await transport.request('standby', { ...authz, signingKey: false })).value,
    ).toHaveLength(1);
    expect(transport.signingKeyId).toBe('main-key');
  });
});

describe('createLicensingTransport', () => {
  it("hands back a JSON body parsed, beside its text, with the Date header as the services' time", async () => {
    const before = Date.now();
    const answer = await transportAt().request('main', { path: '/object', expect: EXPECT_JSON });
    expect(answer).toMatchObject({
      url: `${origin}/object`,
      body: '{"a":[1,2]}',
      value: { a: [1, 2] },
    });
    // Node's server sends Date in whole seconds; the transport takes the middle of that second.
    expect(answer.serviceTime! % 1000).toBe(500);
    expect(answer.serviceTime!).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  });

  it('hands back a JSON null as value: null, not as a missing value', async () => {
    const answer = await transportAt().request('standby', { path: '/null', expect: EXPECT_JSON });
    expect(answer).toHaveProperty('value', null);
  });

  it('hands back the tokens when the request expected JWTs', async () => {
    const answer = await transportAt().request('standby', {
      path: '/jwt',
      expect: expectTokens(1),
    });
    expect(answer.value).toEqual([answer.body]);
    expect(answer.body.split('.')).toHaveLength(3);
  });
});

describe('requestJwks on the transport', () => {
  it("returns a key set with a keys array, and the services' time from Date", async () => {
    const before = Date.now();
    const answer = await requestJwks(transportAt('/keys'), 'main');
    expect(answer.jwks).toEqual({ keys: [] });
    // Date has whole seconds; the transport reads it mid-second.
    expect(Math.abs(answer.serviceTime! - before)).toBeLessThan(2_000);
  });

  it.each(['/no-keys', '/null-keys'])(
    'treats JSON without a keys array (%s) as an outage of the service',
    async (base) => {
      const error = await requestJwks(transportAt(base), 'standby').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FailedAttempt);
      expect((error as FailedAttempt).verdict).toMatchObject({
        outage: true,
        reason: 'malformed-body',
      });
      expect((error as FailedAttempt).verdict.error.code).toBe('SERVICE_UNAVAILABLE');
    },
  );
});
