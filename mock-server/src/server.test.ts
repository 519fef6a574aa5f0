import 'reflect-metadata';
import { createPublicKey, verify, webcrypto } from 'node:crypto';
import { connect } from 'node:net';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './server.js';

const provider = webcrypto as unknown as Crypto;

/** Sends raw bytes to the server and resolves with everything it answers. */
function rawRequest(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('startServer with a public URL', () => {
  it('prints the public URLs and puts them in lease iss and the issuer', async () => {
    const server = await startServer({
      port: 0,
      state: 'active',
      publicUrl: 'https://licensing.example.test/base/',
    });
    try {
      expect(server.info.standbyUrl).toBe('https://licensing.example.test/base/standby');
      expect(server.app.config.issuer).toBe('https://licensing.example.test/base/idp');
      const port = server.app.server.address() as { port: number };
      const local = `http://127.0.0.1:${port.port}`;
      const minted = await fetch(`${local}/idp/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sub: 'u' }),
      });
      const token = (await minted.json()).id_token;
      const lease = await fetch(`${local}/standby/authz/.jwt?ItemA`, {
        headers: { authorization: `IdToken ${token}`, host: 'evil.test' },
      });
      expect(lease.status).toBe(200);
      const payload = JSON.parse(
        Buffer.from((await lease.text()).split('.')[1]!, 'base64url').toString(),
      );
      expect(payload.iss).toBe('https://licensing.example.test/base/standby');
    } finally {
      await server.close();
    }
  });

  it.each([
    'http://user:pw@evil.test',
    'ftp://licensing.test',
    'https://licensing.test/?q=1',
    'not a url',
  ])('refuses the public URL %s', async (publicUrl) => {
    await expect(startServer({ port: 0, publicUrl })).rejects.toThrow(/publicUrl/);
  });
});

describe('startServer over loopback: the README flow', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ port: 0 });
  });
  afterAll(() => server.close());

  it('mints an ID token, enables the standby, and gets a lease that verifies to the root', async () => {
    const { info } = server;
    expect(server.app.config.issuer).toBe(info.idpUrl);
    const minted = await fetch(`${info.idpUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'newcomer' }),
    });
    const auth = { authorization: `IdToken ${(await minted.json()).id_token}` };

    const dormant = await fetch(`${info.standbyUrl}/authz/.jwt?ItemA`, { headers: auth });
    expect(dormant.status).toBe(403);
    expect(await dormant.json()).toMatchObject({ error: 'standby_dormant' });

    const manage = { 'service-apikey': info.apiKey };
    const key = await (
      await fetch(`${info.standbyUrl}/signing-keys`, { method: 'POST', headers: manage })
    ).json();
    const enabled = await fetch(`${info.standbyUrl}/enabled`, { method: 'POST', headers: manage });
    expect(await enabled.json()).toBe(true);

    const lease = await fetch(`${info.standbyUrl}/authz/.jwt?ItemA&hw=H1`, { headers: auth });
    expect(lease.status).toBe(200);
    expect(lease.headers.get('content-type')).toMatch(/^application\/jwt/);
    const token = await lease.text();
    const [h, p, s] = token.split('.') as [string, string, string];
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    expect(header.kid).toBe(key.keyId);
    expect(payload).toMatchObject({ ItemA: true, sub: 'newcomer', hw: 'H1', iss: info.standbyUrl });

    const jwks = await (
      await fetch(`${info.standbyUrl}/.well-known/jwks.json`, { headers: auth })
    ).json();
    const jwk = jwks.keys.find((k: { kid: string }) => k.kid === header.kid);
    const root = new x509.X509Certificate(key.rootCertificate);
    const leaf = new x509.X509Certificate(jwk.x5c[0]);
    expect(await leaf.verify({ publicKey: root }, provider)).toBe(true);
    const leafKey = createPublicKey({
      key: Buffer.from(leaf.publicKey.rawData),
      format: 'der',
      type: 'spki',
    });
    expect(leafKey.export({ format: 'jwk' }).n).toBe(jwk.n);
    expect(verify('sha256', Buffer.from(`${h}.${p}`), leafKey, Buffer.from(s, 'base64url'))).toBe(
      true,
    );
  });

  it('answers malformed requests with 4xx ApiErrors and keeps serving', async () => {
    const { standbyUrl } = server.info;
    const garbage = await fetch(`${standbyUrl}/authz/.jwt?%%%`, {
      headers: { authorization: 'IdToken garbage' },
    });
    expect(garbage.status).toBe(401);
    const unknown = await fetch(`${standbyUrl}/no/such/route`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'not_found' });
    const malformed = await fetch(`${standbyUrl}/enabled`, {
      headers: { authorization: 'IdToken' },
    });
    expect(malformed.status).toBe(401);
    expect(await malformed.json()).toMatchObject({ error: 'invalid_token' });
    const ok = await fetch(`${server.info.mainUrl}/.well-known/jwks.json`);
    expect(ok.status).toBe(200);
  });

  it('answers oversized headers and broken HTTP with ApiError bodies', async () => {
    const port = Number(new URL(server.info.standbyUrl).port);
    const huge = await fetch(`${server.info.standbyUrl}/enabled`, {
      headers: { authorization: `IdToken ${'x'.repeat(64 * 1024)}` },
    });
    expect(huge.status).toBe(431);
    expect(await huge.json()).toMatchObject({ error: 'request_too_large' });
    const broken = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(broken).toMatch(/^HTTP\/1\.1 400 /);
    expect(broken).toContain('"error":"invalid_request"');
    const nonUtf8 = await rawRequest(
      port,
      'GET /standby/authz/.jwt?Item%FF HTTP/1.1\r\nHost: x\r\nAuthorization: IdToken \xff\xfe\r\nConnection: close\r\n\r\n',
    );
    expect(nonUtf8).toMatch(/^HTTP\/1\.1 401 /);
    expect((await fetch(`${server.info.mainUrl}/.well-known/jwks.json`)).status).toBe(200);
  });
});
