// The mock server over real TLS: startServer({ tls }), the --tls-cert/--tls-key flags (both or
// neither), --make-dev-cert, and an SDK client trusting the test CA with `tls.ca`.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLicensingClient } from '@standby-licensing/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevCertificates } from '../../mock-server/src/crypto/dev-cert.js';
import { firstLine, runNode } from '../helpers/networks/node-process.js';
import {
  createNetworkPki,
  type NetworkPki,
  startTestMock,
  type TestMock,
} from '../helpers/networks/tls-mock.js';

const CLI = 'mock-server/src/cli.ts';

describe('the mock server over HTTPS', () => {
  let pki: NetworkPki;
  let mock: TestMock;
  let dir: string;

  beforeAll(async () => {
    pki = await createNetworkPki();
    mock = await startTestMock(pki.trusted);
    dir = await mkdtemp(join(tmpdir(), 'mock-https-'));
    await writeFile(join(dir, 'cert.pem'), pki.trusted.cert);
    await writeFile(join(dir, 'key.pem'), pki.trusted.key);
    await writeFile(join(dir, 'other-key.pem'), pki.untrusted.key);
  });
  afterAll(async () => {
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints https:// URLs and serves TLS with the given certificate', async () => {
    for (const url of Object.values(mock.server.info).filter((v) => v.includes('://'))) {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
    }
    // Node's own roots do not know the test CA: the plain global fetch refuses the certificate.
    const refused = await fetch(`${mock.server.info.mainUrl}/.well-known/jwks.json`).catch(
      (error: Error) => error,
    );
    expect((refused as Error).cause).toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });

  it('serves an SDK client that trusts the test CA with `tls.ca`: checkout, renew, release', async () => {
    const client = createLicensingClient({
      mainUrl: mock.server.info.mainUrl,
      standbyUrl: mock.server.info.standbyUrl,
      auth: { idToken: mock.idToken },
      trust: { rootCertificates: mock.roots },
      proxy: false,
      tls: { ca: pki.trusted.ca.certificate },
    });
    const { leases } = await client.checkout(['ItemA']);
    expect(leases.map((lease) => [lease.item, lease.servedBy])).toEqual([['ItemA', 'main']]);
    const renewed = await client.renew(leases[0]!);
    expect(renewed.leaseId).toBe(leases[0]!.leaseId);
    await client.release(renewed);
    await client.close();
  });

  it('refuses --tls-cert or --tls-key alone with exit code 2', async () => {
    for (const args of [
      ['--tls-cert', join(dir, 'cert.pem')],
      ['--tls-key', join(dir, 'key.pem')],
    ]) {
      const run = runNode([CLI, '--port', '0', ...args]);
      expect(await run.exit).toBe(2);
      expect(run.stderr()).toContain('--tls-cert and --tls-key go together');
      expect(run.stdout()).toBe('');
    }
  });

  it('refuses a key that is not the certificate’s with exit code 2', async () => {
    const run = runNode([
      CLI,
      '--port',
      '0',
      '--tls-cert',
      join(dir, 'cert.pem'),
      '--tls-key',
      join(dir, 'other-key.pem'),
    ]);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toMatch(/tls: this certificate and key cannot serve HTTPS/);
  });

  it('serves HTTPS from the command line and prints https:// URLs', async () => {
    const run = runNode([
      CLI,
      '--port',
      '0',
      '--tls-cert',
      join(dir, 'cert.pem'),
      '--tls-key',
      join(dir, 'key.pem'),
    ]);
    try {
      const info = JSON.parse(await firstLine(run)) as Record<string, string>;
      expect(info.mainUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/main$/);
      expect(info.eventUrl).toMatch(/^https:\/\//);
    } finally {
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(0);
    }
  });

  it('--make-dev-cert writes a CA and a loopback certificate, never the CA key, never over a file', async () => {
    const out = join(dir, 'dev');
    const run = runNode([CLI, '--make-dev-cert', out]);
    expect(await run.exit).toBe(0);
    expect(run.stdout()).toContain(`--tls-cert ${join(out, 'cert.pem')} --tls-key`);
    const ca = new X509Certificate(await readFile(join(out, 'ca.pem')));
    const cert = new X509Certificate(await readFile(join(out, 'cert.pem')));
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.checkHost('example.com')).toBeUndefined();
    expect((await stat(join(out, 'key.pem'))).mode & 0o777).toBe(0o600);
    const written = await readFile(join(out, 'ca.pem'), 'utf8');
    expect(written).not.toContain('PRIVATE KEY');

    const again = runNode([CLI, '--make-dev-cert', out]);
    expect(await again.exit).toBe(1);
    expect(again.stderr()).toContain('EEXIST');
    expect(await readFile(join(out, 'ca.pem'), 'utf8')).toBe(written);
  });

  it('createDevCertificates issues more certificates under one CA, for the names asked', async () => {
    const other = await createDevCertificates({ ca: pki.trusted.ca, hosts: ['licensing.test'] });
    const cert = new X509Certificate(other.cert);
    expect(cert.verify(new X509Certificate(pki.trusted.ca.certificate).publicKey)).toBe(true);
    expect(cert.checkHost('licensing.test')).toBe('licensing.test');
    expect(cert.checkHost('localhost')).toBeUndefined();
    expect(cert.subjectAltName).toBe('DNS:licensing.test');
    await expect(createDevCertificates({ hosts: [] })).rejects.toThrow(/non-empty/);
  });
});
