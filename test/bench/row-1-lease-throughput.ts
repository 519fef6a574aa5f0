import { Agent, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { CALLS_HELD_PER_THREAD } from '../../mock-server/src/crypto/signing-pool.js';
import {
  type Measured,
  measureAlternating,
  perCpuSecond,
  perWallSecond,
  ratioOf,
  summarize,
} from './bench-helpers.js';
import type { BenchLine, BenchRow } from './bench-result.js';
import { readCpuMs, spawnNodeScript, startChildServer, stopChild } from './child-server.js';
import {
  leaseSigningInput,
  measureRawSign,
  measureRawSignParallel,
  rsa2048,
} from './crypto-reference.js';
import { mintToken } from './mock-api.js';
import { type WrkResult, wrk } from './wrk.js';

/**
 * Target of row 1: leases per second at least this share of (cores × raw signatures/s), on a
 * quiet host (issue 31; 0.6 before).
 */
export const LEASE_THROUGHPUT_TARGET = 0.75;

function ratioField(ours: number, reference: number): { ratio?: number } {
  const ratio = ratioOf(ours, reference);
  return ratio === undefined ? {} : { ratio };
}

/**
 * Round-trip times of `count` requests sent one at a time on one keep-alive connection (after
 * `warmup` untimed ones), in ms.
 */
async function sequentialLatencies(
  url: string,
  headers: Record<string, string>,
  count: number,
  warmup = 200,
): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { agent, headers }, (res) => {
        res.resume();
        res.once('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      });
      req.once('error', reject);
      req.end();
    });
  try {
    for (let i = 0; i < warmup; i++) await once();
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      await once();
      samples.push(performance.now() - start);
    }
    return samples;
  } finally {
    agent.destroy();
  }
}

/** Starts the mock with `args`, checks one lease, and hands its lease URL and headers to `fn`. */
async function withLeaseServer<T>(
  args: string[],
  fn: (url: string, headers: Record<string, string>, cpuMs: () => number) => Promise<T>,
): Promise<T> {
  const server = await startChildServer({ args });
  try {
    const token = await mintToken(server);
    const url = `${server.info.standbyUrl}/authz/.jwt?ItemA&hw=hw-1&version=1.0.0`;
    const headers = { authorization: `IdToken ${token}`, accept: 'application/jwt' };
    const probe = await fetch(url, { headers });
    const body = await probe.text();
    if (probe.status !== 200 || body.split('.').length !== 3) {
      throw new Error(`standby /authz/.jwt answered ${probe.status}: ${body.slice(0, 200)}`);
    }
    return await fn(url, headers, () => server.cpuMs());
  } finally {
    await server.close();
  }
}

/**
 * Row 1: standby `GET /authz/.jwt?ItemA` leases per second over HTTP keep-alive (wrk, one
 * thread: a load generator in C that leaves the cores to the server, where autocannon took about
 * twice its CPU; the mock server in a child process with its default signing pool, one worker
 * thread per core), against raw `crypto.sign` RSA-2048 per second on one core times the cores.
 * wrk keeps twice as many requests in flight as the pool holds (32 connections per core), so
 * that requests wait for the pool as they do when a herd fails over; a closed loop of exactly the
 * pool's size leaves the pool empty while answers travel back and the next requests come in.
 * The two are measured in alternating slices (load, then raw signing, then load...), so that the
 * machine's drift over the run weighs on both alike. Every lease is one signature. Further
 * lines:
 *
 * - `1 at pool size`: leases/s with as many connections as the pool holds (16 per core), in the
 *   same rounds, against the same reference (this row's setting until issue 13's fourth
 *   session);
 * - `1 parallel`: against raw signing on every core at once (what the machine delivered in this
 *   run: less than cores × one core when other work shares it);
 * - `1 core`: against one core (the reference before the pool);
 * - `1 cpu`: leases per CPU second of the server (every thread) against signatures per CPU
 *   second; `1 cpu+gen` counts the load generator's CPU too: what line 1 reads at best when the
 *   two have the cores to themselves and keep them busy (the estimate to read on a busy machine);
 * - `1 floor`: per CPU second against a bare node:http server that signs once per request on one
 *   thread (the floor of "HTTP plus a signature");
 * - `1 latency`: one request at a time, with the pool and with `--signing-threads 0` (the cost
 *   of the hop to a worker on an idle server).
 */
export const leaseThroughputRow: BenchRow = {
  name: 'leases',
  id: 1,
  title: 'Standby /authz/.jwt leases per second vs raw RSA-2048 signing on every core',
  async run({ quick, log }) {
    const cores = availableParallelism();
    // The pool runs one worker thread per core by default.
    const poolSize = CALLS_HELD_PER_THREAD * cores;
    const connections = 2 * poolSize;
    const { privateKey } = rsa2048();
    const input = leaseSigningInput();
    log(`row 1: raw crypto.sign on ${cores} threads at once`);
    const parallel = await measureRawSignParallel(privateKey, input, cores, quick ? 500 : 2000);

    // The floor for "HTTP plus one signature": a bare node:http server that signs per request.
    const bare = await spawnNodeScript('test/bench/bare-sign-server.ts', []);
    let floor: Measured;
    try {
      const { url } = JSON.parse(bare.firstLine) as { url: string };
      const target = `${url}/authz/.jwt?ItemA&hw=hw-1&version=1.0.0`;
      log('row 1: bare node:http + crypto.sign floor');
      await wrk({ url: target, connections, durationS: 1 });
      const cpuBefore = readCpuMs(bare.child.pid!);
      const result = await wrk({ url: target, connections, durationS: quick ? 2 : 5 });
      floor = {
        ops: result.ok,
        wallMs: result.wallMs,
        cpuMs: readCpuMs(bare.child.pid!) - cpuBefore,
      };
    } finally {
      await stopChild(bare.child);
    }

    const rounds = quick ? 2 : 5;
    const sliceS = quick ? 1 : 2;
    const latencyCount = quick ? 200 : 1000;
    const pooled = await withLeaseServer([], async (url, headers, serverCpuMs) => {
      log('row 1: warm-up');
      await wrk({ url, headers, connections, durationS: quick ? 1 : 2 });
      measureRawSign(privateKey, input, 200);
      log(
        `row 1: wrk (${connections}, then ${poolSize} keep-alive connections) and raw ` +
          `crypto.sign on one core in alternating ${sliceS} s slices, ${rounds} rounds`,
      );
      const slices: WrkResult[] = [];
      const poolSizeSlices: WrkResult[] = [];
      const load = async (): Promise<Measured> => {
        const serverBefore = serverCpuMs();
        const result = await wrk({ url, headers, connections, durationS: sliceS });
        const measured = {
          ops: result.ok,
          wallMs: result.wallMs,
          cpuMs: serverCpuMs() - serverBefore,
        };
        slices.push(result);
        poolSizeSlices.push(await wrk({ url, headers, connections: poolSize, durationS: sliceS }));
        return measured;
      };
      const alternated = await measureAlternating(
        (ms) => measureRawSign(privateKey, input, ms, 0),
        load,
        { rounds, sliceMs: sliceS * 1000 },
      );
      log('row 1: one request at a time, pool');
      const latencies = await sequentialLatencies(url, headers, latencyCount);
      return { alternated, slices, poolSizeSlices, latencies };
    });
    log('row 1: one request at a time, --signing-threads 0');
    const inlineLatencies = await withLeaseServer(['--signing-threads', '0'], (url, headers) =>
      sequentialLatencies(url, headers, latencyCount),
    );

    const { alternated, slices, poolSizeSlices } = pooled;
    const raw = alternated.a;
    const served = alternated.b;
    const sumOf = (of: WrkResult[], pick: (r: WrkResult) => number) =>
      of.reduce((total, r) => total + pick(r), 0);
    const sum = (pick: (r: WrkResult) => number) => sumOf(slices, pick);
    const atPoolSize: Measured = {
      ops: sumOf(poolSizeSlices, (r) => r.ok),
      wallMs: sumOf(poolSizeSlices, (r) => r.wallMs),
      cpuMs: 0,
    };
    const harnessCpuMs = sum((r) => r.cpuMs);
    const leasesPerS = perWallSecond(served);
    const rawPerS = perWallSecond(raw);
    const allCores = rawPerS * cores;
    const latency = summarize(pooled.latencies);
    const inlineLatency = summarize(inlineLatencies);
    const line = (
      row: string,
      metric: string,
      ours: number,
      reference: number,
      label: string,
      withTarget: boolean,
    ): BenchLine => {
      const ratio = ratioOf(ours, reference);
      return {
        row,
        metric,
        ours,
        unit: '/s',
        reference,
        referenceLabel: label,
        ...(ratio === undefined ? {} : { ratio }),
        ...(withTarget
          ? {
              target: `ratio >= ${LEASE_THROUGHPUT_TARGET}`,
              met: ratio !== undefined && ratio >= LEASE_THROUGHPUT_TARGET,
            }
          : {}),
      };
    };
    return [
      {
        ...line(
          '1',
          'standby leases/s, HTTP keep-alive, wall clock',
          leasesPerS,
          allCores,
          `crypto.sign RSA-2048 x ${cores} cores`,
          true,
        ),
        details: {
          cores,
          signingThreads: cores,
          connections,
          durationS: served.wallMs / 1000,
          leases: served.ops,
          non2xx: sum((r) => r.non2xx),
          errors: sum((r) => r.errors),
          latencyP50Ms: summarize(slices.map((r) => r.latencyP50Ms)).p50,
          latencyP99Ms: Math.max(...slices.map((r) => r.latencyP99Ms)),
          roundRatioMin: Math.min(...alternated.roundRatios) / cores,
          roundRatioMax: Math.max(...alternated.roundRatios) / cores,
          serverCpuCores: served.cpuMs / served.wallMs,
          // wrk runs on one thread: far below 1.0 means it kept up.
          loadGeneratorCpuCores: harnessCpuMs / served.wallMs,
          loadGeneratorMachineShare: harnessCpuMs / served.wallMs / cores,
        },
      },
      {
        ...line(
          '1 at pool size',
          `standby leases/s with ${poolSize} connections (the requests the pool holds at once)`,
          perWallSecond(atPoolSize),
          allCores,
          `crypto.sign RSA-2048 x ${cores} cores`,
          false,
        ),
        details: {
          connections: poolSize,
          leases: atPoolSize.ops,
          non2xx: sumOf(poolSizeSlices, (r) => r.non2xx),
          errors: sumOf(poolSizeSlices, (r) => r.errors),
          latencyP99Ms: Math.max(...poolSizeSlices.map((r) => r.latencyP99Ms)),
        },
      },
      line(
        '1 parallel',
        'standby leases/s vs raw signing measured on every core at once',
        leasesPerS,
        perWallSecond(parallel),
        `crypto.sign on ${cores} threads, same run`,
        false,
      ),
      line(
        '1 core',
        'standby leases/s, wall clock, vs one core',
        leasesPerS,
        rawPerS,
        'crypto.sign RSA-2048, 1 core',
        false,
      ),
      line(
        '1 cpu',
        'standby leases per server CPU-second (every thread)',
        perCpuSecond(served),
        perCpuSecond(raw),
        'crypto.sign per CPU-second',
        false,
      ),
      // Line 1 at best, when server and load generator have every core to themselves and keep
      // them busy: the estimate to read when other work shares the machine.
      line(
        '1 cpu+gen',
        'standby leases per CPU-second of server and load generator together',
        perCpuSecond({ ...served, cpuMs: served.cpuMs + harnessCpuMs }),
        perCpuSecond(raw),
        'crypto.sign per CPU-second',
        false,
      ),
      {
        row: '1 floor',
        metric: 'standby leases per CPU-second vs bare node:http + crypto.sign',
        ours: perCpuSecond(served),
        unit: '/s',
        reference: perCpuSecond(floor),
        referenceLabel: 'bare server, one thread, per CPU-second',
        ...ratioField(perCpuSecond(served), perCpuSecond(floor)),
        details: { floorWallPerS: perWallSecond(floor), floorRequests: floor.ops },
      },
      {
        row: '1 latency',
        metric: 'one lease at a time, round trip p50 (signing pool)',
        ours: latency.p50,
        unit: 'ms',
        reference: inlineLatency.p50,
        referenceLabel: '--signing-threads 0, p50',
        ...ratioField(latency.p50, inlineLatency.p50),
        details: {
          requests: latency.n,
          poolP99Ms: latency.p99,
          inlineP99Ms: inlineLatency.p99,
          poolMeanMs: latency.mean,
          inlineMeanMs: inlineLatency.mean,
        },
      },
    ];
  },
};
