// `npm run soak [-- --seconds 180 --writers 20 --lease-clients 4]`
//
// Kills the mock server with SIGKILL in a loop while concurrent writers put events and clients
// take and renew leases, against a real child process with --data-dir. At the end it reads the
// whole feed back and checks that every write the server acknowledged (201) is there exactly
// once, that nothing is there twice, and that timestamps strictly increase. Writes that got no
// answer (the server died mid-request) may be there once or not at all.
//
// Prints one summary (batches, events, kills, lost, duplicated, ...) and exits 1 when anything
// acknowledged was lost or duplicated. Not part of `npm test`: it runs for minutes.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { spawnNodeScript, stopChild } from '../bench/child-server.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '120' },
    writers: { type: 'string', default: '20' },
    'lease-clients': { type: 'string', default: '4' },
    'min-up-ms': { type: 'string', default: '1000' },
    'max-up-ms': { type: 'string', default: '4000' },
  },
});
const SECONDS = Number(values.seconds);
const WRITERS = Number(values.writers);
const LEASE_CLIENTS = Number(values['lease-clients']);
const MIN_UP_MS = Number(values['min-up-ms']);
const MAX_UP_MS = Number(values['max-up-ms']);
const FEED = 'soak';

/** A free TCP port on loopback, reused by every incarnation of the server. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const dataDir = await mkdtemp(join(tmpdir(), 'standby-soak-'));
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;

let server: Awaited<ReturnType<typeof spawnNodeScript>> | undefined;
async function startServer(): Promise<void> {
  server = await spawnNodeScript(
    'mock-server/src/cli.ts',
    ['--port', String(port), '--data-dir', dataDir, '--state', 'active', '--api-key', 'soak'],
    { startTimeoutMs: 60_000 },
  );
}

const counts = {
  batches: 0,
  events: 0,
  unansweredBatches: 0,
  refusedBatches: 0,
  notSentBatches: 0,
  kills: 0,
  leases: 0,
  renewals: 0,
  leaseFailures: 0,
};
/** Events acknowledged with 201, by id. */
const acknowledged = new Set<string>();
/** Events of writes that got no answer: may be stored or not, but at most once. */
const unknown = new Set<string>();
/** Events of writes refused (4xx, 5xx) or never sent (server down): must not be stored. */
const refused = new Set<string>();
let stopping = false;

async function writer(w: number): Promise<void> {
  let seq = 0;
  while (!stopping) {
    const size = 1 + (seq % 3);
    const ids = Array.from({ length: size }, () => `${w}:${seq++}`);
    const body = ids.map((id) => ({ eventType: 'Soak', eventSourceId: FEED, data: { id } }));
    try {
      const res = await fetch(`${origin}/events/put`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body.length === 1 ? body[0] : body),
        signal: AbortSignal.timeout(15_000),
      });
      if (res.status === 201) {
        counts.batches++;
        counts.events += size;
        for (const id of ids) acknowledged.add(id);
      } else {
        counts.refusedBatches++;
        for (const id of ids) refused.add(id);
      }
      await res.arrayBuffer();
    } catch (err) {
      if ((err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') {
        // The server is down: the request never reached it.
        counts.notSentBatches++;
        for (const id of ids) refused.add(id);
      } else {
        // The server died while the request was in flight: no answer, outcome unknown.
        counts.unansweredBatches++;
        for (const id of ids) unknown.add(id);
      }
      await sleep(50);
    }
  }
}

async function leaseClient(): Promise<void> {
  let token: string | undefined;
  let leaseId: string | undefined;
  while (!stopping) {
    try {
      if (!token) {
        const minted = await fetch(`${origin}/idp/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sub: 'soak', expiresInSeconds: 86_400 }),
          signal: AbortSignal.timeout(15_000),
        });
        token = ((await minted.json()) as { id_token: string }).id_token;
      }
      const query = leaseId ? `ItemA=;leaseId=${leaseId}` : 'ItemA&hw=soak';
      const res = await fetch(`${origin}/standby/authz/.jwt?${query}`, {
        headers: { authorization: `IdToken ${token}` },
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      if (res.status !== 200) {
        counts.leaseFailures++;
        continue;
      }
      const claims = JSON.parse(Buffer.from(text.split('.')[1]!, 'base64url').toString());
      if (claims.iss !== `${origin}/standby` || claims.ItemA !== true) {
        throw new Error(`unexpected lease claims: ${JSON.stringify(claims)}`);
      }
      if (leaseId) counts.renewals++;
      else counts.leases++;
      leaseId = claims.jti;
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('unexpected')) throw err;
      counts.leaseFailures++;
      await sleep(50);
    }
  }
}

async function killer(until: number): Promise<void> {
  while (Date.now() < until) {
    await sleep(MIN_UP_MS + Math.random() * (MAX_UP_MS - MIN_UP_MS));
    const child = server!.child;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    counts.kills++;
    await startServer();
  }
}

/** Reads the whole feed by following newer instructions from the start. */
async function readFeed(): Promise<Array<{ id: string; ts: bigint }>> {
  const minted = await fetch(`${origin}/idp/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub: 'reader', claims: { '*': true } }),
  });
  const token = ((await minted.json()) as { id_token: string }).id_token;
  const events: Array<{ id: string; ts: bigint }> = [];
  let url = `${FEED}?after=0&maxEventCount=10000`;
  for (;;) {
    const res = await fetch(`${origin}/events/get/${url}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const page = (await res.json()) as {
      count: number;
      updateUrl: string;
      objects: Array<{ eventType: string; eventReceived_str: string; data: { id: string } }>;
    };
    for (const item of page.objects) {
      if (item.eventType !== 'instruction') {
        events.push({ id: item.data.id, ts: BigInt(item.eventReceived_str) });
      }
    }
    if (page.count === 0) return events;
    url = page.updateUrl;
  }
}

const started = Date.now();
try {
  await startServer();
  const until = started + SECONDS * 1000;
  const load = [
    ...Array.from({ length: WRITERS }, (_, w) => writer(w)),
    ...Array.from({ length: LEASE_CLIENTS }, () => leaseClient()),
  ];
  await killer(until);
  stopping = true;
  await Promise.all(load);

  const events = await readFeed();
  const seen = new Map<string, number>();
  for (const { id } of events) seen.set(id, (seen.get(id) ?? 0) + 1);
  const lost = [...acknowledged].filter((id) => !seen.has(id));
  const duplicated = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  const strangers = [...seen.keys()].filter((id) => !acknowledged.has(id) && !unknown.has(id));
  const refusedStored = [...refused].filter((id) => seen.has(id)).length;
  let outOfOrder = 0;
  for (let i = 1; i < events.length; i++) if (events[i]!.ts <= events[i - 1]!.ts) outOfOrder++;
  const unknownStored = [...unknown].filter((id) => seen.has(id)).length;

  const summary = {
    seconds: Math.round((Date.now() - started) / 1000),
    writers: WRITERS,
    batches: counts.batches,
    events: counts.events,
    kills: counts.kills,
    lost: lost.length,
    duplicated: duplicated.length,
    unansweredBatches: counts.unansweredBatches,
    refusedBatches: counts.refusedBatches,
    notSentBatches: counts.notSentBatches,
    unansweredEventsStored: unknownStored,
    unansweredEventsNotStored: unknown.size - unknownStored,
    eventsInFeed: events.length,
    notWrittenByUs: strangers.length,
    refusedOrNotSentButStored: refusedStored,
    timestampsNotIncreasing: outOfOrder,
    leases: counts.leases,
    renewals: counts.renewals,
    leaseFailuresWhileDown: counts.leaseFailures,
  };
  console.log(JSON.stringify(summary, null, 2));
  const ok =
    lost.length === 0 &&
    duplicated.length === 0 &&
    strangers.length === 0 &&
    refusedStored === 0 &&
    outOfOrder === 0;
  if (!ok) {
    console.error('soak FAILED', { lost: lost.slice(0, 10), duplicated: duplicated.slice(0, 10) });
  }
  process.exitCode = ok ? 0 : 1;
} finally {
  stopping = true;
  if (server) await stopChild(server.child);
  await rm(dataDir, { recursive: true, force: true });
}
