// The Done-when of issue 29, as a test: a drill on the mock server with --data-dir (a child
// process running the real CLI). Main goes down and 200 apps (SDK licensing clients, each its own
// user and device) fail over to the standby and take leases; some renew and some release, while
// the standby's event deliveries are held, so their events are only in its outbox journal; the
// mock is killed with SIGKILL and restarted on the same port and data dir; the apps go on (more
// renewals, releases and new leases). Then `standby-licensing usage` (the real command, in a
// child process) must report exactly what the apps did, no event lost or doubled, and
// /admin/metrics must agree with the request journal's counts.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import {
  createLicensingClient,
  type Lease,
  type LicensingClient,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, spawnNodeScript, stopChild } from '../bench/child-server.js';

const run = promisify(execFile);
const APPS = 200;
const API_KEY = 'usage-drill-key';

interface Mock {
  child: Awaited<ReturnType<typeof spawnNodeScript>>['child'];
  origin: string;
}

/** A port free now (the restarted mock must listen where the apps already point). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startMock(port: number, dataDir: string): Promise<Mock> {
  const { child, firstLine } = await spawnNodeScript(
    'mock-server/src/cli.ts',
    [
      ...['--port', String(port), '--data-dir', dataDir, '--admin', '--state', 'active'],
      ...['--api-key', API_KEY],
    ],
    { startTimeoutMs: 60_000 },
  );
  const origin = new URL((JSON.parse(firstLine) as { mainUrl: string }).mainUrl).origin;
  return { child, origin };
}

async function kill9(mock: Mock): Promise<void> {
  const exited = new Promise((resolve) => mock.child.once('exit', resolve));
  mock.child.kill('SIGKILL');
  await exited;
}

async function call<T>(origin: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(path.startsWith('/standby/signing-keys') ? { 'service-apikey': API_KEY } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  const text = await res.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Runs `fn` over `items`, `width` at a time. */
async function pool<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** What the drill did, per consumer and item: the rows `standby-licensing usage` must print. */
interface Expected {
  granted: number;
  renewed: number;
  released: number;
  /** iat of each grant, seconds. */
  grants: number[];
  /** exp of each lease granted or renewed, seconds. */
  exps: number[];
  /** The lease hours of leases that were never released (exact; released ones depend on delivery). */
  unreleasedHours: number;
  /** Lower and upper bound of the hours of released leases. */
  releasedHours: [number, number];
}

/** A `sample{labels} value` of a Prometheus text body (0 when absent). */
function sample(body: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.lastIndexOf('}')).split(',');
    if (wanted.every((pair) => inner.includes(pair))) return Number(line.split(' ').at(-1));
  }
  return 0;
}

describe('outage usage drill: 200 apps, kill -9 mid-drill, usage reports exactly what they did', () => {
  const dirs: string[] = [];
  const mocks = new Set<Mock>();
  const clients: LicensingClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all([...mocks].map((mock) => stopChild(mock.child)));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('reports every grant, renewal and release once across a SIGKILL, and metrics agree with the journal', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'usage-drill-'));
    dirs.push(dataDir);
    const port = await freePort();
    const launch = async () => {
      const mock = await startMock(port, dataDir);
      mocks.add(mock);
      mock.child.once('exit', () => mocks.delete(mock));
      return mock;
    };
    // Main goes down (faults are not kept across a restart: applied again after it).
    const breakMain = (at: Mock) => call(at.origin, 'POST', '/admin/scenarios/main-down');
    let mock = await launch();
    const { origin } = mock;

    // The apps' roots: a standby signing key's (as embed-root makes it) and main's.
    const created = await call<{ keyId: string; rootCertificate: string }>(
      origin,
      'POST',
      '/standby/signing-keys',
    );
    const jwks = await call<{ keys: Array<{ x5c: string[] }> }>(
      origin,
      'GET',
      '/main/.well-known/jwks.json',
    );
    const der = jwks.keys[0]!.x5c.at(-1)!;
    await breakMain(mock);
    const roots: TrustedRoot[] = [
      { pem: created.rootCertificate, keyId: created.keyId },
      {
        pem: `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`,
      },
    ];

    const expected = new Map<string, Expected>();
    const tally = (app: number, item: string) => {
      const key = `app-${app}\n${item}`;
      let entry = expected.get(key);
      if (!entry) {
        entry = {
          granted: 0,
          renewed: 0,
          released: 0,
          grants: [],
          exps: [],
          unreleasedHours: 0,
          releasedHours: [0, 0],
        };
        expected.set(key, entry);
      }
      return entry;
    };
    /** Every lease of the drill by app: its first iat and last exp, released when. */
    const leases = new Map<
      string,
      { app: number; item: string; start: number; end: number; releasedFrom?: number }
    >();
    const done = { consume: 0, renew: 0, release: 0 };
    const held = new Map<number, Lease[]>();

    const apps = await Promise.all(
      Array.from({ length: APPS }, async (_, app) => {
        const { id_token: idToken } = await call<{ id_token: string }>(
          origin,
          'POST',
          '/idp/token',
          {
            sub: `app-${app}`,
            expiresInSeconds: 3600,
          },
        );
        const client = createLicensingClient({
          mainUrl: `${origin}/main`,
          standbyUrl: `${origin}/standby`,
          auth: { idToken: () => idToken },
          trust: { rootCertificates: roots },
          hardwareId: `device-${app}`,
          failover: { strategy: 'A', mainAttempts: 1, attemptTimeoutMs: 5_000, breaker: false },
        });
        clients.push(client);
        return client;
      }),
    );

    const checkout = async (app: number, items: string[]) => {
      const { leases: got } = await apps[app]!.checkout(items);
      expect(got.map((l) => l.servedBy)).toEqual(items.map(() => 'standby'));
      for (const lease of got) {
        const entry = tally(app, lease.item);
        entry.granted++;
        entry.grants.push(lease.claims.iat);
        entry.exps.push(lease.claims.exp);
        leases.set(lease.leaseId, {
          app,
          item: lease.item,
          start: lease.claims.iat,
          end: lease.claims.exp,
        });
        held.set(app, [...(held.get(app) ?? []), lease]);
      }
      done.consume += got.length;
    };
    const renew = async (app: number, index: number) => {
      const lease = held.get(app)?.[index];
      if (!lease) return false;
      const renewed = await apps[app]!.renew(lease);
      expect(renewed.leaseId).toBe(lease.leaseId);
      const entry = tally(app, lease.item);
      entry.renewed++;
      entry.exps.push(renewed.claims.exp);
      leases.get(lease.leaseId)!.end = Math.max(leases.get(lease.leaseId)!.end, renewed.claims.exp);
      held.get(app)![index] = renewed;
      done.renew++;
      return true;
    };
    const release = async (app: number, index: number) => {
      const lease = held.get(app)?.[index];
      if (!lease) return false;
      const before = Date.now() / 1000;
      await apps[app]!.release(lease);
      tally(app, lease.item).released++;
      // A lease ends at its release event's eventReceived (when the event service got it):
      // not before the call, not after every event was delivered.
      leases.get(lease.leaseId)!.releasedFrom = Math.floor(before) - 1;
      held.get(app)!.splice(index, 1);
      done.release++;
      return true;
    };
    const everyApp = Array.from({ length: APPS }, (_, app) => app);

    // Phase 1: every app fails over and takes its leases (a third of them two items).
    await pool(everyApp, 16, (app) => checkout(app, app % 3 === 0 ? ['Pro', 'Basic'] : ['Pro']));

    // Phase 2, with the standby's deliveries held: the events stay in its outbox journal.
    await call(origin, 'PUT', '/admin/standby/outbox', { paused: true });
    let phase2Events = 0;
    await pool(everyApp, 16, async (app) => {
      if (app % 2 === 0 && (await renew(app, 0))) phase2Events++;
      if (app % 5 === 0 && (await release(app, held.get(app)!.length - 1))) phase2Events++;
    });
    const outbox = await call<{ paused: boolean; pendingEvents: number }>(
      origin,
      'GET',
      '/admin/standby/outbox',
    );
    expect(outbox).toMatchObject({ paused: true, pendingEvents: phase2Events });

    // kill -9 mid-drill: nothing flushed, no shutdown hook; then the same port and data dir.
    await kill9(mock);
    mock = await launch();
    await breakMain(mock);

    // Phase 3, after the restart: more renewals and releases, and new leases.
    const before3 = { ...done };
    await pool(everyApp, 16, async (app) => {
      if (app % 4 === 1) await renew(app, 0);
      if (app % 7 === 3) await release(app, 0);
      if (app % 10 === 9) await checkout(app, ['Team']);
    });
    const phase3 = {
      consume: done.consume - before3.consume,
      renew: done.renew - before3.renew,
      release: done.release - before3.release,
    };

    // Every event delivered: the outbox empties.
    for (let i = 0; ; i++) {
      const view = await call<{ pending: number }>(mock.origin, 'GET', '/admin/standby/outbox');
      if (view.pending === 0) break;
      if (i > 300) throw new Error('the standby outbox did not drain in 30 s');
      await sleep(100);
    }
    const deliveredBy = Date.now() / 1000 + 1;

    // --- standby-licensing usage, the real command ---
    const { id_token: readerToken } = await call<{ id_token: string }>(
      mock.origin,
      'POST',
      '/idp/token',
      { sub: 'vendor', claims: { standby: true } },
    );
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'sdk/src/cli/main.ts',
        'usage',
        '--event-url',
        `${mock.origin}/events`,
        '--reader-token',
        readerToken,
        '--format',
        'json',
      ],
      { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
    const rows = JSON.parse(stdout) as Array<{
      consumer: string;
      item: string;
      granted: number;
      renewed: number;
      released: number;
      firstGrant: string | null;
      lastExp: string | null;
      leaseHours: number;
      devices: number;
      graceGrants: number;
    }>;

    for (const lease of leases.values()) {
      const entry = tally(lease.app, lease.item);
      if (lease.releasedFrom === undefined) {
        entry.unreleasedHours += (lease.end - lease.start) / 3600;
        continue;
      }
      const hours = (until: number) => Math.max(0, Math.min(until, lease.end) - lease.start) / 3600;
      entry.releasedHours[0] += hours(lease.releasedFrom);
      entry.releasedHours[1] += hours(deliveredBy);
    }
    const key = (consumer: string, item: string) => `${consumer}\n${item}`;
    expect(rows.map((r) => key(r.consumer, r.item)).sort()).toEqual([...expected.keys()].sort());
    for (const row of rows) {
      const want = expected.get(key(row.consumer, row.item))!;
      const what = `${row.consumer} ${row.item}`;
      expect([row.granted, row.renewed, row.released], what).toEqual([
        want.granted,
        want.renewed,
        want.released,
      ]);
      expect(row.devices, what).toBe(1);
      expect(row.graceGrants, what).toBe(0);
      expect(row.firstGrant, what).toBe(new Date(Math.min(...want.grants) * 1000).toISOString());
      expect(row.lastExp, what).toBe(new Date(Math.max(...want.exps) * 1000).toISOString());
      const [low, high] = want.releasedHours;
      // The command prints lease hours to four places.
      expect(row.leaseHours, what).toBeGreaterThanOrEqual(want.unreleasedHours + low - 1e-4);
      expect(row.leaseHours, what).toBeLessThanOrEqual(want.unreleasedHours + high + 1e-4);
    }
    const total = (pick: (e: Expected) => number) =>
      [...expected.values()].reduce((sum, e) => sum + pick(e), 0);
    const drillEvents = total((e) => e.granted + e.renewed + e.released);

    // No event lost or doubled in the feed itself: one event id per answer item, all distinct.
    const feed = await fetch(`${mock.origin}/events/get/standby?maxEventCount=10000`, {
      headers: { authorization: `Bearer ${readerToken}` },
    }).then(
      (res) => res.json() as Promise<{ objects: Array<{ eventId?: string; eventType: string }> }>,
    );
    const events = feed.objects.filter((o) => o.eventType !== 'instruction');
    expect(events).toHaveLength(drillEvents);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(drillEvents);

    // --- /admin/metrics against the journal (this process: phase 3) ---
    const metrics = await (await fetch(`${mock.origin}/admin/metrics`)).text();
    const journal = await call<{
      count: number;
      dropped: number;
      entries: Array<{ kind?: string; granted?: number; items?: number }>;
    }>(mock.origin, 'GET', '/admin/requests?service=standby&path=/authz/.jwt&status=200');
    expect(journal.dropped).toBe(0);
    expect(
      sample(metrics, 'standby_mock_requests_total', {
        service: 'standby',
        route: '/authz/.jwt',
        status: '200',
      }),
    ).toBe(journal.count);
    const journalled = (kind: string) =>
      journal.entries.filter((e) => e.kind === kind).reduce((sum, e) => sum + (e.granted ?? 0), 0);
    expect(
      sample(metrics, 'standby_mock_leases_granted_total', { service: 'standby', kind: 'consume' }),
    ).toBe(journalled('consume'));
    expect(
      sample(metrics, 'standby_mock_leases_granted_total', { service: 'standby', kind: 'renew' }),
    ).toBe(journalled('renew'));
    expect(sample(metrics, 'standby_mock_leases_released_total', { service: 'standby' })).toBe(
      journalled('release'),
    );
    // And both say what the apps did in this phase.
    expect([journalled('consume'), journalled('renew'), journalled('release')]).toEqual([
      phase3.consume,
      phase3.renew,
      phase3.release,
    ]);
    expect(sample(metrics, 'standby_mock_outbox_backlog_events', { outbox: 'standby' })).toBe(0);
    // The journal's main entries: every app call tried main first (reset), as metrics count.
    const mainResets = await call<{ count: number }>(
      mock.origin,
      'GET',
      '/admin/requests?service=main',
    );
    expect(
      sample(metrics, 'standby_mock_requests_total', { service: 'main', status: 'reset' }),
    ).toBeGreaterThan(0);
    expect(mainResets.count).toBeGreaterThan(0);

    console.log(
      `usage drill: ${APPS} apps, ${rows.length} rows, ${drillEvents} events (${total((e) => e.granted)} granted, ${total((e) => e.renewed)} renewed, ${total((e) => e.released)} released; ${phase2Events} of them only in the outbox at the kill); phase 3 journal ${journal.count} standby leases = metrics`,
    );
  }, 240_000);
});
