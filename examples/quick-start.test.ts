// Runs the README's quick start (examples/quick-start.ts) against an in-process mock server:
// leases from main, from the standby while main answers 503, and from main again after repair.

import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import type { TrustedRoot } from '@standby-licensing/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from './quick-start.js';

const API_KEY = 'quick-start-test-key';
let mock: RunningServer;
let roots: TrustedRoot[];

beforeAll(async () => {
  mock = await startServer({ port: 0, state: 'active', admin: true, apiKey: API_KEY });
  const { standbyUrl, mainUrl } = mock.info;
  // What the two embed-root commands write: a new standby key's root (with its keyId) and the
  // mock main's root from its JWKS.
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
  roots = [{ pem: rootCertificate, keyId }, { pem: mainPem }];
});
afterAll(() => mock.close());

async function admin(method: string, body?: unknown): Promise<void> {
  const res = await fetch(mock.info.mainUrl.replace(/\/main$/, '/admin/faults'), {
    method,
    ...(body
      ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  expect(res.ok).toBe(true);
}

it('renews on main, on the standby while main is down, and on main again after repair', async () => {
  const lines: string[] = [];
  const rounds = await main({
    ...mock.info,
    roots,
    rounds: 3,
    intervalMs: 0,
    log: (line) => lines.push(line),
    async afterRound(round) {
      if (round === 1) await admin('POST', { mode: 'error', status: 503 });
      if (round === 2) {
        await admin('DELETE');
        // Strategy B stays on the standby until its probe sees main answer again.
        for (let i = 0; i < 200 && !lines.some((l) => l.includes('back on main')); i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    },
  });
  expect(rounds).toEqual([
    ['main', 'main'],
    ['standby', 'standby'],
    ['main', 'main'],
  ]);
  expect(lines.slice(0, 2)).toEqual(['checked out ItemA from main', 'checked out ItemB from main']);
  expect(lines).toContain('  ! main failed: licensing moved to the standby');
});
