// Runs examples/offline-restart.ts: leases checked out against an in-process mock server come back
// after a restart with the server stopped (no network call at all), and a clock set back is
// refused with CLOCK_ROLLBACK; then the one command, whose restarts are new processes.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '@standby-licensing/mock-server';
import type { TrustedRoot } from '@standby-licensing/sdk';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { main, runAll } from './offline-restart.js';

const API_KEY = 'offline-restart-test-key';
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'offline-restart-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

async function rootsOf(standbyUrl: string, mainUrl: string): Promise<TrustedRoot[]> {
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
  const mainPem = `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`;
  return [{ pem: rootCertificate, keyId }, { pem: mainPem }];
}

it('gets the leases back offline after a restart, and refuses a clock set back', async () => {
  const mock = await startServer({ port: 0, state: 'active', admin: true, apiKey: API_KEY });
  const roots = await rootsOf(mock.info.standbyUrl, mock.info.mainUrl);
  const storePath = join(folder, 'licensing.json');
  const lines: string[] = [];
  const common = { ...mock.info, roots, storePath, log: (line: string) => lines.push(line) };

  const checkedOut = await main({ ...common, step: 'checkout' });
  expect(checkedOut.map((lease) => [lease.item, lease.servedBy])).toEqual([
    ['ItemA', 'main'],
    ['ItemB', 'main'],
  ]);
  await mock.close();

  // The app restarts with nothing listening: restore() makes no network call at all.
  const fetchSpy = vi.spyOn(globalThis, 'fetch');
  try {
    const restored = await main({ ...common, step: 'restore' });
    expect(restored.map((lease) => [lease.item, lease.leaseId])).toEqual(
      checkedOut.map((lease) => [lease.item, lease.leaseId]),
    );
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(lines.filter((line) => line.startsWith('restored'))).toHaveLength(2);

    await expect(
      main({ ...common, step: 'restore', clockBackMs: 2 * 3_600_000 }),
    ).rejects.toMatchObject({ code: 'CLOCK_ROLLBACK' });
    expect(lines.at(-1)).toMatch(/^refused: CLOCK_ROLLBACK/);
    expect(fetchSpy).not.toHaveBeenCalled();
  } finally {
    fetchSpy.mockRestore();
  }
});

it('runs the three steps as one command, each restart a new process with no network', async () => {
  const mock = await startServer({ port: 0, state: 'active', apiKey: API_KEY });
  try {
    // The two modules embed-root writes, in a folder of their own (ROOTS_DIR).
    const [standby, mainRoot] = await rootsOf(mock.info.standbyUrl, mock.info.mainUrl);
    const rootsDir = join(folder, 'roots');
    await mkdir(rootsDir, { recursive: true });
    await writeFile(
      join(rootsDir, 'standby-root.ts'),
      `export const rootCertificate = ${JSON.stringify(standby)} as const;\n`,
    );
    await writeFile(
      join(rootsDir, 'main-root.ts'),
      `export const mainRoot = ${JSON.stringify(mainRoot)} as const;\n`,
    );
    const lines: string[] = [];
    const report = await runAll({
      ...mock.info,
      rootsDir,
      storePath: join(folder, 'one-command', 'licensing.json'),
      log: (line) => lines.push(line),
    });
    expect(report.checkedOut.map((lease) => lease.servedBy)).toEqual(['main', 'main']);
    // The restart restored both leases, by id, without one request (the mock was up: any
    // request would have been answered, had the process had a network).
    expect(report.restart.code).toBe(0);
    for (const lease of report.checkedOut) {
      expect(report.restart.output).toContain(`restored ${lease.item} (lease ${lease.leaseId},`);
    }
    expect(report.restart.output).toContain('network off: 0 requests attempted');
    expect(report.clockBack.code).toBe(1);
    expect(report.clockBack.output).toMatch(/^refused: CLOCK_ROLLBACK/m);
    expect(report.clockBack.output).toContain('network off: 0 requests attempted');
    expect(lines[0]).toBe('1/3 checkout, with the mock server running:');
  } finally {
    await mock.close();
  }
}, 60_000);
