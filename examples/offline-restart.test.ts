// Runs examples/offline-restart.ts: leases checked out against an in-process mock server come back
// after a restart with the server stopped (no network call at all), and a clock set back is
// refused with CLOCK_ROLLBACK.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '@standby-licensing/mock-server';
import type { TrustedRoot } from '@standby-licensing/sdk';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { main } from './offline-restart.js';

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
