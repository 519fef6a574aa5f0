// Runs the README's quick start (examples/quick-start.ts) against an in-process mock server:
// leases from main, from the standby while main answers 503, and from main again after repair;
// then the README's QA console drill, step by step through the admin API, which the app must
// survive without a restart.

import { getEventListeners } from 'node:events';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import type { TrustedRoot } from '@standby-licensing/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type RenewalOutcome } from './quick-start.js';

const API_KEY = 'quick-start-test-key';
const HOUR_MS = 3_600_000;
let mock: RunningServer;
let roots: TrustedRoot[];
let adminUrl: string;

beforeAll(async () => {
  mock = await startServer({ port: 0, state: 'active', admin: true, apiKey: API_KEY });
  const { standbyUrl, mainUrl, idpUrl } = mock.info;
  adminUrl = mainUrl.replace(/\/main$/, '/admin');
  // What the two embed-root commands write: the standby's current key's root (with its keyId)
  // and the mock main's root from its JWKS.
  const token = await fetch(`${idpUrl}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub: 'dev' }),
  });
  const { id_token } = (await token.json()) as { id_token: string };
  const standbyJwks = (await (
    await fetch(`${standbyUrl}/.well-known/jwks.json`, {
      headers: { Authorization: `IdToken ${id_token}` },
    })
  ).json()) as { keys: Array<{ kid: string; x5c: string[] }> };
  const mainJwks = (await (await fetch(`${mainUrl}/.well-known/jwks.json`)).json()) as {
    keys: Array<{ x5c: string[] }>;
  };
  const pem = (der: string) =>
    `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`;
  const current = standbyJwks.keys[0]!;
  roots = [
    { pem: pem(current.x5c.at(-1)!), keyId: current.kid },
    { pem: pem(mainJwks.keys[0]!.x5c.at(-1)!) },
  ];
});
afterAll(() => mock.close());

async function admin(path: string, method: string, body?: unknown): Promise<void> {
  const res = await fetch(`${adminUrl}/${path}`, {
    method,
    ...(body
      ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  expect(res.ok).toBe(true);
}

async function standby(path: 'enabled' | 'disabled'): Promise<void> {
  const res = await fetch(`${mock.info.standbyUrl}/${path}`, {
    method: 'POST',
    headers: { 'Service-ApiKey': API_KEY },
  });
  expect(res.status).toBe(200);
}

/** Waits (real time, polling) until `lines` holds a line with `text`. */
async function waitForLine(lines: string[], text: string): Promise<void> {
  for (let i = 0; i < 200 && !lines.some((l) => l.includes(text)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('examples/quick-start.ts', () => {
  it('renews on main, on the standby while main is down, and on main again after repair', async () => {
    const lines: string[] = [];
    const rounds = await main({
      ...mock.info,
      roots,
      rounds: 3,
      intervalMs: 0,
      log: (line) => lines.push(line),
      async afterRound(round) {
        if (round === 1) await admin('faults', 'POST', { mode: 'error', status: 503 });
        if (round === 2) {
          await admin('faults', 'DELETE');
          // Strategy B stays on the standby until its probe sees main answer again.
          await waitForLine(lines, 'back on main');
        }
      },
    });
    expect(rounds).toEqual([
      ['main', 'main'],
      ['standby', 'standby'],
      ['main', 'main'],
    ]);
    expect(lines.slice(0, 2)).toEqual([
      'checked out ItemA from main',
      'checked out ItemB from main',
    ]);
    // The line names main's error (the README's snippet prints it too).
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}! main failed: licensing moved to the standby \(.+\)$/),
    );
  });

  it('leaves no abort listener behind, round after round', async () => {
    const stop = new AbortController();
    const counts: number[] = [];
    await main({
      ...mock.info,
      roots,
      rounds: 30,
      intervalMs: 0,
      signal: stop.signal,
      log: () => {},
      afterRound: () => {
        counts.push(getEventListeners(stop.signal, 'abort').length);
      },
    });
    expect(counts).toHaveLength(30);
    // Before the fix, each round's pause added one (MaxListenersExceededWarning past 10).
    expect(Math.max(...counts)).toBe(0);
  });

  it("survives the README's QA console drill: refusals are reported, and leases come from main again", async () => {
    const lines: string[] = [];
    const stop = new AbortController();
    // The drill's steps, one per round from the moment the previous step showed its effect.
    const steps: Array<{
      name: string;
      until: (outcomes: RenewalOutcome[]) => boolean;
      next: () => Promise<void>;
    }> = [
      {
        name: '2. leases from main',
        until: (o) => o.every((s) => s === 'main'),
        next: () => admin('faults', 'POST', { mode: 'error', status: 503 }), // Break main
      },
      {
        name: '3. leases from the standby',
        until: (o) => o.every((s) => s === 'standby'),
        next: () => admin('clock', 'PUT', { advanceMs: 26 * HOUR_MS }), // Clock +26 h
      },
      {
        name: '4a. the standby refuses the ID token past its grace',
        until: (o) => o.every((s) => s === 'UNAUTHORIZED'),
        next: async () => {
          await admin('clock', 'PUT', { offsetMs: 0 }); // Clock back to real time
          await standby('disabled'); // Standby: disable
        },
      },
      {
        name: '4b. nothing serves: main broken, standby off',
        until: (o) => o.every((s) => s !== 'main' && s !== 'standby'),
        next: async () => {
          await standby('enabled'); // Standby: enable
          await admin('faults', 'DELETE'); // Restore main
        },
      },
      {
        name: '5. leases from main again',
        until: (o) => o.every((s) => s === 'main'),
        next: async () => stop.abort(),
      },
    ];
    const seen: string[] = [];
    const rounds = await main({
      ...mock.info,
      roots,
      intervalMs: 50,
      signal: stop.signal,
      log: (line) => lines.push(line),
      async afterRound(round, outcomes) {
        const step = steps[seen.length];
        if (step?.until(outcomes)) {
          seen.push(step.name);
          await step.next();
        }
        if (round > 400) stop.abort(); // a bound, in case a step never shows
      },
    });
    expect(seen, lines.join('\n')).toEqual(steps.map((s) => s.name));
    // The refusals were reported with their codes, and the app kept going.
    expect(
      lines.some((l) =>
        /^renewal of Item[AB] failed: UNAUTHORIZED: .*keeping the current lease/.test(l),
      ),
    ).toBe(true);
    expect(rounds.at(-1)).toEqual(['main', 'main']);
  }, 60_000);
});
