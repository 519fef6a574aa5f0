// Runs examples/quit-releases-leases.ts: the app, a real child Node process, is ended by SIGTERM
// (and, in another run, finishes with exit code 3); the in-process mock server's request log
// (`GET /admin/requests`) shows its release arriving, and the process ends as it would have: by
// SIGTERM, or with exit code 3. Without releaseOnExit no release arrives.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuitDrill } from './quit-releases-leases.js';

const API_KEY = 'quit-example-key';
let mock: RunningServer;
let rootsDir: string;
let urls: { mainUrl: string; standbyUrl: string; idpUrl: string };

beforeAll(async () => {
  mock = await startServer({ port: 0, state: 'active', admin: true, apiKey: API_KEY });
  const { mainUrl, standbyUrl, idpUrl } = mock.info;
  urls = { mainUrl, standbyUrl, idpUrl };
  // The two modules embed-root writes.
  const created = await fetch(`${standbyUrl}/signing-keys`, {
    method: 'POST',
    headers: { 'Service-ApiKey': API_KEY },
  });
  const { keyId, rootCertificate } = (await created.json()) as {
    keyId: string;
    rootCertificate: string;
  };
  const jwks = (await (await fetch(`${mainUrl}/.well-known/jwks.json`)).json()) as {
    keys: Array<{ x5c: string[] }>;
  };
  const der = jwks.keys[0]!.x5c.at(-1)!;
  const mainPem = `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  rootsDir = await mkdtemp(join(tmpdir(), 'quit-roots-'));
  await writeFile(
    join(rootsDir, 'standby-root.ts'),
    `export const rootCertificate = ${JSON.stringify({ pem: rootCertificate, keyId })} as const;\n`,
  );
  await writeFile(
    join(rootsDir, 'main-root.ts'),
    `export const mainRoot = ${JSON.stringify({ pem: mainPem })} as const;\n`,
  );
});
afterAll(async () => {
  await mock?.close();
  await rm(rootsDir, { recursive: true, force: true });
});

describe('examples/quit-releases-leases.ts (a child Node process)', () => {
  it('SIGTERM: the release reaches the mock, then the process ends by SIGTERM', async () => {
    const lines: string[] = [];
    const report = await runQuitDrill({ ...urls, rootsDir, log: (l) => lines.push(l) });
    expect(report.ready).toMatch(/^ready: holding ItemA \(\S+\), ItemB \(\S+\)$/);
    expect(report.signal).toBe('SIGTERM');
    expect(report.code).toBeNull();
    // After `ready:`, the app's only request was the release, answered by main.
    expect(report.after).toMatchObject([
      {
        service: 'main',
        method: 'GET',
        route: '/authz/.jwt',
        status: 200,
        caller: 'quitting-user',
      },
    ]);
    expect(report.releases).toHaveLength(1);
    expect(lines).toContain('app ended: by SIGTERM');
  }, 60_000);

  it('beforeExit: the app finishes with exit code 3, releases, and still exits 3', async () => {
    const report = await runQuitDrill({ ...urls, rootsDir, mode: 'finish', log: () => {} });
    expect(report.code).toBe(3);
    expect(report.signal).toBeNull();
    // Its checkout carried the device (and fetched main's keys); its last request, the
    // release, did not.
    const authz = report.after.filter((e) => e.route === '/authz/.jwt');
    expect(authz.map((e) => e.hw ?? null)).toEqual(['quitting-workstation', null]);
    expect(report.after.at(-1)).toBe(authz.at(-1));
    expect(report.releases).toMatchObject([{ service: 'main', status: 200 }]);
  }, 60_000);

  it('without releaseOnExit nothing is released: the seats stay taken', async () => {
    const report = await runQuitDrill({ ...urls, rootsDir, noRelease: true, log: () => {} });
    expect(report.signal).toBe('SIGTERM');
    expect(report.after).toEqual([]);
    expect(report.releases).toEqual([]);
  }, 60_000);
});
