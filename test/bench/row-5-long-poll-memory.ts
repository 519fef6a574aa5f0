import { readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { ratioOf } from './bench-helpers.js';
import type { BenchRow } from './bench-result.js';
import { readRssKiB, spawnNodeScript, startChildServer, stopChild } from './child-server.js';
import { mintToken } from './mock-api.js';

/**
 * Target of row 5: RSS growth per parked long poll at most this multiple of a bare `node:http`
 * server's growth per held request (the same requests, measured in the same run).
 */
export const WAITER_TARGET_RATIO = 1.2;
/** File-descriptor limit for the server processes (one socket per waiter, plus slack). */
const FD_LIMIT = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** RSS after the process has been quiet for a moment (two equal-ish readings). */
async function settledRss(pid: number): Promise<number> {
  let previous = readRssKiB(pid);
  for (let i = 0; i < 20; i++) {
    await sleep(250);
    const now = readRssKiB(pid);
    if (Math.abs(now - previous) < 64) return now;
    previous = now;
  }
  return previous;
}

export interface HoldResult {
  beforeKiB: number;
  afterKiB: number;
  perWaiterKiB: number;
  answeredEarly: number;
}

/**
 * Opens `count` requests to `urlFor(i)` on keep-alive sockets of one raw `http.Agent`, waits
 * until the server process holds them all (its open fds), reads its RSS, then drops them.
 */
export async function holdRequests(
  pid: number,
  count: number,
  urlFor: (i: number) => string,
  headers: Record<string, string>,
): Promise<HoldResult> {
  const beforeKiB = await settledRss(pid);
  const fdsBefore = openFds(pid);
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  let answeredEarly = 0;
  const requests = [];
  try {
    for (let i = 0; i < count; i++) {
      const req = request(urlFor(i), { agent, headers });
      req.on('response', (response) => {
        answeredEarly++;
        response.resume();
      });
      req.on('error', () => {
        // Expected when the sockets are destroyed at the end.
      });
      req.end();
      requests.push(req);
      // Open in bursts the listen backlog can take.
      if (i % 250 === 249) await sleep(20);
    }
    const deadline = performance.now() + 30_000;
    while (openFds(pid) < fdsBefore + count && performance.now() < deadline) await sleep(100);
    const held = openFds(pid) - fdsBefore;
    if (held < count) throw new Error(`the server holds ${held} of ${count} sockets after 30 s`);
    const afterKiB = await settledRss(pid);
    return { beforeKiB, afterKiB, perWaiterKiB: (afterKiB - beforeKiB) / count, answeredEarly };
  } finally {
    for (const req of requests) req.destroy();
    agent.destroy();
  }
}

/**
 * Row 5: RSS growth of one mock server process (child, `ulimit -n` raised) per idle long poll
 * (`GET /events/get/<feed>?after=1&maxWaitMs=60000` on an empty feed, each on its own keep-alive
 * socket of a raw `http.Agent`), from /proc/<pid>/status VmRSS before and after opening them,
 * against a bare node:http server that holds the same requests (same paths, same Authorization
 * header) without answering. The mock runs with `--signing-threads 0` (see below).
 */
export const longPollMemoryRow: BenchRow = {
  name: 'memory',
  id: 5,
  title: 'Memory of idle long polls held by one server process',
  async run({ quick, log }) {
    const count = quick ? 1000 : 10_000;
    const path = (feed: string, waitMs: number) =>
      `/get/${feed}?after=1&maxWaitMs=${waitMs}&maxEventCount=100`;

    log(`row 5: mock server holding ${count} long polls`);
    // Without signing threads, so the figure is the long-poll path's alone: memory the threads
    // free while they start is reused for the first polls (with a tsx loader in each thread it
    // made the growth read 1-2 KiB lower).
    const server = await startChildServer({ fdLimit: FD_LIMIT, args: ['--signing-threads', '0'] });
    let ours: HoldResult;
    let headers: Record<string, string>;
    try {
      const token = await mintToken(server, { sub: 'bench-reader', claims: { '*': true } });
      headers = { authorization: `Bearer ${token}` };
      const poll = (feed: string, waitMs: number) => `${server.info.eventUrl}${path(feed, waitMs)}`;
      // Warm-up: the same route, parked briefly, so JIT code and pools are not counted.
      await holdRequests(
        server.pid,
        Math.min(500, count),
        (i) => poll(`warm-${i % 50}`, 60_000),
        headers,
      );
      await sleep(500);
      ours = await holdRequests(server.pid, count, (i) => poll(`idle-${i % 100}`, 60_000), headers);
    } finally {
      await server.close();
    }

    log(`row 5: bare node:http server holding the same ${count} requests`);
    const bare = await spawnNodeScript('test/bench/bare-hold-server.ts', [], { fdLimit: FD_LIMIT });
    let floor: HoldResult;
    try {
      const { url } = JSON.parse(bare.firstLine) as { url: string };
      const events = `${url}/events`;
      await holdRequests(
        bare.child.pid!,
        Math.min(500, count),
        (i) => `${events}${path(`warm-${i % 50}`, 60_000)}`,
        headers,
      );
      await sleep(500);
      floor = await holdRequests(
        bare.child.pid!,
        count,
        (i) => `${events}${path(`idle-${i % 100}`, 60_000)}`,
        headers,
      );
    } finally {
      await stopChild(bare.child);
    }
    if (ours.answeredEarly > 0) {
      throw new Error(`${ours.answeredEarly} long polls were answered while they should wait`);
    }
    const ratio = ratioOf(ours.perWaiterKiB, floor.perWaiterKiB);
    return [
      {
        row: '5',
        metric: `server RSS growth per idle long poll (${count} held, keep-alive)`,
        ours: ours.perWaiterKiB,
        unit: 'KiB',
        reference: floor.perWaiterKiB,
        referenceLabel: 'bare node:http holding requests',
        ...(ratio === undefined ? {} : { ratio }),
        target: `ratio <= ${WAITER_TARGET_RATIO}`,
        met: ratio !== undefined && ratio <= WAITER_TARGET_RATIO,
        details: {
          waiters: count,
          rssBeforeKiB: ours.beforeKiB,
          rssAfterKiB: ours.afterKiB,
          bareRssBeforeKiB: floor.beforeKiB,
          bareRssAfterKiB: floor.afterKiB,
        },
      },
    ];
  },
};
