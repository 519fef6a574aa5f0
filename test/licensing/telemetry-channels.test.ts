// The SDK's telemetry channels (docs/observability.md) during a failover drill against the real
// mock server: a subscriber of every `standby-licensing:*` channel and of the three tracing
// channels sees checkout, renew, release, restore, failover, failback, keys fetched and a clock
// rollback, and no payload holds a token, an ID token, a key or the hardware id, in any field,
// message, stack or cause. The same scan run over the client's own hook payloads finds the
// hardware id there (they carry the raw errors), so the scan can fail.
import * as diagnostics from 'node:diagnostics_channel';
import { createMemoryLeaseStore, type Lease } from '@standby-licensing/sdk';
import {
  clearFaults,
  clientFor,
  type MockLicensing,
  mintIdToken,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, expect, it } from 'vitest';

const HARDWARE_ID = 'hw-telemetry-4f1c9e';
const HARDWARE_NAME = 'Build server in room 7';
const PLAIN = [
  'checkout',
  'renew',
  'release',
  'restore',
  'clockRollback',
  'failover',
  'failback',
  'attemptFailed',
  'leaseRenewed',
  'renewFailed',
  'idTokenGrace',
  'rootExpiring',
  'circuitOpen',
  'circuitClose',
  'keysFetched',
];
const TRACED = ['checkout', 'renew', 'restore'];

let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing();
});
afterAll(() => mock.close());

/** Every text reachable from `value`: keys and strings, own non-enumerable fields included. */
function texts(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  return Object.getOwnPropertyNames(value).flatMap((key) => [
    key,
    ...texts((value as Record<string, unknown>)[key], seen),
  ]);
}

/** Subscribes to every channel; returns what was published and a function that unsubscribes. */
function subscribeAll() {
  const messages: Array<{ channel: string; message: unknown }> = [];
  const stops: Array<() => void> = [];
  for (const name of PLAIN) {
    const channel = `standby-licensing:${name}`;
    const onMessage = (message: unknown) => messages.push({ channel, message });
    diagnostics.subscribe(channel, onMessage);
    stops.push(() => diagnostics.unsubscribe(channel, onMessage));
  }
  for (const name of TRACED) {
    const tracing = diagnostics.tracingChannel(`standby-licensing:${name}`);
    const on = (event: string) => (message: unknown) =>
      // A copy: one context object goes through the five events.
      messages.push({
        channel: `tracing:standby-licensing:${name}:${event}`,
        message: { ...(message as object) },
      });
    const handlers = {
      start: on('start'),
      end: on('end'),
      asyncStart: on('asyncStart'),
      asyncEnd: on('asyncEnd'),
      error: on('error'),
    };
    tracing.subscribe(handlers);
    stops.push(() => tracing.unsubscribe(handlers));
  }
  const stop = () => {
    for (const undo of stops) undo();
  };
  return { messages, stop };
}

it('publishes the drill on the channels, and no payload holds a secret', async () => {
  const { messages, stop } = subscribeAll();
  const idTokens: string[] = [];
  const hookPayloads: unknown[] = [];
  const store = createMemoryLeaseStore();
  const options = {
    idToken: async () => {
      const token = await mintIdToken(mock.server);
      idTokens.push(token);
      return token;
    },
    hardwareId: HARDWARE_ID,
    hardwareName: HARDWARE_NAME,
    leaseStore: store,
    failover: { strategy: 'A' as const, mainAttempts: 2, breaker: false as const },
  };
  const leases: Lease[] = [];
  try {
    const { client } = clientFor(mock, options);
    for (const name of ['failover', 'failback', 'attemptFailed', 'leaseRenewed'] as const) {
      client.on(name, (event) => hookPayloads.push(event));
    }
    // Main serves; then main fails (503) and the standby serves; then main is back.
    const first = await client.checkout(['ItemA']);
    leases.push(...first.leases);
    leases.push(await client.renew(first.leases[0]!));
    await setMainFault(mock.server, { mode: 'error', status: 503 });
    const outage = await client.checkout(['ItemB']);
    leases.push(...outage.leases);
    expect(outage.leases[0]!.servedBy).toBe('standby');
    leases.push(await client.renew(outage.leases[0]!));
    await clearFaults(mock.server);
    const after = await client.checkout(['ItemC']);
    leases.push(...after.leases);
    expect(after.leases[0]!.servedBy).toBe('main');
    await client.close({ release: false });

    // A restart restores them; a restart with the clock set back 2 h is refused.
    const { client: restarted } = clientFor(mock, options);
    const restored = await restarted.restore();
    expect(restored.leases.length).toBeGreaterThan(0);
    await restarted.release(restored.leases);
    await restarted.close();
    const { client: rolledBack } = clientFor(mock, {
      ...options,
      now: () => Date.now() - 7_200_000,
    });
    await expect(rolledBack.restore()).rejects.toMatchObject({ code: 'CLOCK_ROLLBACK' });
    await rolledBack.close();
  } finally {
    stop();
  }

  const channels = new Set(messages.map((m) => m.channel));
  for (const name of [
    'checkout',
    'renew',
    'release',
    'restore',
    'failover',
    'failback',
    'attemptFailed',
    'leaseRenewed',
    'keysFetched',
    'clockRollback',
  ]) {
    expect(channels, name).toContain(`standby-licensing:${name}`);
  }
  for (const name of TRACED) {
    for (const event of ['start', 'end', 'asyncStart', 'asyncEnd']) {
      expect(channels).toContain(`tracing:standby-licensing:${name}:${event}`);
    }
  }
  expect(channels).toContain('tracing:standby-licensing:restore:error');
  const of = (channel: string) =>
    messages.filter((m) => m.channel === `standby-licensing:${channel}`).map((m) => m.message);
  expect(of('failover')).toEqual([
    expect.objectContaining({ from: 'main', to: 'standby', strategy: 'A', reason: 'server-error' }),
  ]);
  expect(of('failback')).toEqual([expect.objectContaining({ reason: 'main-answered' })]);
  expect(of('keysFetched')).toEqual(
    expect.arrayContaining([
      { service: 'main', keyIds: expect.any(Array) },
      { service: 'standby', keyIds: expect.arrayContaining([mock.standbyRoot.keyId]) },
    ]),
  );
  expect(of('checkout')).toContainEqual({
    items: ['ItemB'],
    result: {
      leases: [
        {
          item: 'ItemB',
          leaseId: leases[2]!.leaseId,
          licenseId: leases[2]!.licenseId,
          servedBy: 'standby',
          expiresAt: leases[2]!.expiresAt,
          refreshAt: leases[2]!.refreshAt,
        },
      ],
      denied: [],
    },
  });
  expect(of('clockRollback')).toEqual([
    expect.objectContaining({
      operation: 'restore',
      error: expect.objectContaining({ code: 'CLOCK_ROLLBACK' }),
    }),
  ]);

  // The secrets of this drill: every token, ID token, key and the hardware id and its label.
  const reader = await mintIdToken(mock.server);
  const jwks = await Promise.all(
    [mock.server.info.mainUrl, mock.server.info.standbyUrl].map(async (base) => {
      const headers = { Authorization: `IdToken ${reader}` };
      const answer = await fetch(`${base}/.well-known/jwks.json`, { headers });
      return (await answer.json()) as { keys: Array<{ n: string; x5c: string[] }> };
    }),
  );
  const secrets = [
    HARDWARE_ID,
    HARDWARE_NAME,
    encodeURIComponent(HARDWARE_NAME),
    ...leases.map((lease) => lease.token),
    ...idTokens,
    ...jwks.flatMap(({ keys }) => keys.flatMap((key) => [key.n, ...key.x5c])),
    mock.standbyRoot.pem,
    mock.mainRootPem,
  ];
  expect(idTokens.length).toBeGreaterThan(0);
  expect(messages.length).toBeGreaterThan(30);
  const published = texts(messages.map((m) => m.message));
  for (const secret of secrets) {
    const found = published.find((text) => text.includes(secret.slice(0, 40)));
    expect(found, `a payload holds ${secret.slice(0, 24)}…`).toBeUndefined();
  }
  for (const field of ['token', 'claims', 'hw', 'idToken']) {
    expect(published, field).not.toContain(field);
  }
  // The hook payloads carry the raw errors, whose URLs name the hardware id: the scan finds it.
  expect(texts(hookPayloads).some((text) => text.includes(HARDWARE_ID))).toBe(true);
});
