import { createServer } from 'node:net';
import {
  createLicensingClient,
  type FailoverOptions,
  type LicensingClient,
} from '@standby-licensing/sdk';
import { ratioOf, summarize } from './bench-helpers.js';
import type { BenchLine, BenchRow } from './bench-result.js';
import { type ChildServer, startChildServer } from './child-server.js';
import { clearFaults, createSigningKey, mainRootPem, mintToken, setMainFault } from './mock-api.js';

/** Target: a refused main port costs less than this to the first standby lease, in ms. */
export const REFUSED_FAILOVER_TARGET_MS = 50;
/** Target: a sticky Strategy B call costs less than this multiple of a direct standby call. */
export const STICKY_OVERHEAD_TARGET = 1.1;
/** Attempt timeout configured for the hang case, in ms. */
export const HANG_ATTEMPT_TIMEOUT_MS = 200;
/** Slack allowed over the attempt timeout for the hang case, in ms. */
const HANG_SLACK_MS = 50;

type Breakage = 'refused' | 'hang' | '503';

/** A loopback port nothing listens on (connections are refused). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

interface Setup {
  server: ChildServer;
  idToken: string;
  roots: Array<{ pem: string; keyId?: string }>;
  refusedMainUrl: string;
}

/** Counts requests per service so "main attempts while sticky" can be reported. */
function countingFetch(mainUrl: string) {
  const counts = { main: 0, other: 0 };
  const counted: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith(mainUrl)) counts.main++;
    else counts.other++;
    return fetch(input, init);
  };
  return { counts, fetch: counted };
}

/**
 * The reference client's standby: its main is the standby itself, which answers, so its standby is
 * never asked (and the client refuses a standby URL equal to the main one, issue 33). Port 9 is
 * discard: nothing listens there.
 */
const UNASKED_STANDBY = 'http://127.0.0.1:9/standby';

function makeClient(
  setup: Setup,
  mainUrl: string,
  failover: FailoverOptions,
  fetchImpl: typeof fetch = fetch,
): LicensingClient {
  const { standbyUrl } = setup.server.info;
  return createLicensingClient({
    mainUrl,
    standbyUrl: mainUrl === standbyUrl ? UNASKED_STANDBY : standbyUrl,
    auth: { idToken: () => setup.idToken },
    trust: { rootCertificates: setup.roots },
    hardwareId: 'hw-1',
    version: '1.0.0',
    fetch: fetchImpl,
    failover: { probeIntervalMs: 600_000, ...failover },
  });
}

/** Time of one fresh client's first checkout, in ms; checks who served it. */
async function timeFirstCheckout(
  client: LicensingClient,
  expected: 'main' | 'standby',
): Promise<number> {
  const start = performance.now();
  const { leases } = await client.checkout(['ItemA']);
  const elapsed = performance.now() - start;
  if (leases[0]?.servedBy !== expected) {
    throw new Error(`expected a lease from ${expected}, got ${leases[0]?.servedBy}`);
  }
  await client.close();
  return elapsed;
}

async function breakMain(setup: Setup, how: Breakage): Promise<string> {
  await clearFaults(setup.server);
  if (how === 'refused') return setup.refusedMainUrl;
  if (how === 'hang') await setMainFault(setup.server, { mode: 'hang' });
  else await setMainFault(setup.server, { mode: 'error', status: 503 });
  return setup.server.info.mainUrl;
}

/**
 * Row 3: failover latency with the SDK against the mock server (child process, admin faults):
 * a fresh client's first `checkout` until the lease from the standby (standby JWKS fetch and
 * chain check included), for a refused main port, a hanging main (bounded by
 * `attemptTimeoutMs`) and a main answering 503; Strategy A and B with `mainAttempts: 1`, plus
 * Strategy A with the SDK defaults. Targets are judged on the median (p99 is in the details; on a
 * shared 2-core machine the tail of 20 samples is scheduler noise). For Strategy A, the details
 * also give a warm client's next call (standby keys cached, main still broken). Reference: the same first checkout of a fresh client whose
 * main URL is the standby itself (no failure to detect), interleaved with each case. Then Strategy B's per-call cost while
 * sticky on the standby against a client that calls the standby directly (medians of interleaved
 * blocks after a warm-up), and the number of main requests made meanwhile.
 */
export const failoverRow: BenchRow = {
  name: 'failover',
  id: 3,
  title: 'Failover latency by breakage and strategy; sticky overhead',
  async run({ quick, log }) {
    const server = await startChildServer({ args: ['--admin'] });
    try {
      const standbyRoot = await createSigningKey(server);
      const setup: Setup = {
        server,
        idToken: await mintToken(server, { expiresInSeconds: 7200 }),
        roots: [standbyRoot, { pem: await mainRootPem(server) }],
        refusedMainUrl: `http://127.0.0.1:${await closedPort()}/main`,
      };
      const iterations = quick ? 3 : 20;
      const fast: FailoverOptions = {
        mainAttempts: 1,
        attemptTimeoutMs: HANG_ATTEMPT_TIMEOUT_MS,
      };

      log('row 3: warm-up');
      // Untimed warm-up: the first chain checks pay for JIT compilation of x509 and jose.
      for (let i = 0; i < 3; i++) {
        await timeFirstCheckout(makeClient(setup, server.info.standbyUrl, fast), 'main');
      }

      const lines: BenchLine[] = [];
      const cases: Array<{
        how: Breakage;
        strategy: 'A' | 'B';
        options: FailoverOptions;
        tag: string;
      }> = [];
      for (const how of ['refused', 'hang', '503'] as const) {
        for (const strategy of ['A', 'B'] as const) {
          cases.push({ how, strategy, options: { ...fast, strategy }, tag: '' });
        }
      }
      cases.push({ how: 'refused', strategy: 'A', options: { strategy: 'A' }, tag: ' defaults' });
      // What the defaults would cost without the backoff wait before the second main attempt.
      cases.push({
        how: 'refused',
        strategy: 'A',
        options: { strategy: 'A', backoffBaseMs: 0 },
        tag: ' 2 attempts, no backoff',
      });

      for (const { how, strategy, options, tag } of cases) {
        log(`row 3: main ${how}, Strategy ${strategy}${tag}`);
        const mainUrl = await breakMain(setup, how);
        const times: number[] = [];
        const warmTimes: number[] = [];
        const referenceTimes: number[] = [];
        for (let i = 0; i < iterations; i++) {
          // The reference runs interleaved with the case, so machine load hits both alike.
          referenceTimes.push(
            await timeFirstCheckout(makeClient(setup, server.info.standbyUrl, fast), 'main'),
          );
          const client = makeClient(setup, mainUrl, options);
          const start = performance.now();
          const { leases } = await client.checkout(['ItemA']);
          times.push(performance.now() - start);
          if (leases[0]?.servedBy !== 'standby') throw new Error('no standby lease');
          if (strategy === 'A') {
            // The same client again: standby JWKS and chain now cached, main still broken.
            const again = performance.now();
            await client.checkout(['ItemA']);
            warmTimes.push(performance.now() - again);
          }
          await client.close();
        }
        const s = summarize(times);
        const direct = summarize(referenceTimes);
        const ratio = ratioOf(s.p50, direct.p50);
        const line: BenchLine = {
          row: `3 ${how} ${strategy}${tag}`,
          metric: `first standby lease, main ${how === 'refused' ? 'port refused' : how === 'hang' ? 'hangs' : 'answers 503'}, p50${tag === ' defaults' ? ' (SDK default failover options)' : tag ? ' (defaults, backoffBaseMs 0)' : ''}`,
          ours: s.p50,
          unit: 'ms',
          reference: direct.p50,
          referenceLabel: 'fresh client on the standby directly, p50',
          ...(ratio === undefined ? {} : { ratio }),
          details: {
            ...(warmTimes.length > 0 ? { warmClientP50Ms: summarize(warmTimes).p50 } : {}),
            overReferenceMs: s.p50 - direct.p50,
            p99Ms: s.p99,
            maxMs: s.max,
            iterations: s.n,
            mainAttempts: options.mainAttempts ?? 2,
            attemptTimeoutMs: options.attemptTimeoutMs ?? 5000,
            backoffBaseMs: options.backoffBaseMs ?? 250,
          },
        };
        if (how === 'refused') {
          line.target = `p50 < ${REFUSED_FAILOVER_TARGET_MS} ms`;
          line.met = s.p50 < REFUSED_FAILOVER_TARGET_MS;
        } else if (how === 'hang') {
          const bound = HANG_ATTEMPT_TIMEOUT_MS + HANG_SLACK_MS;
          line.target = `p50 < attemptTimeout + ${HANG_SLACK_MS} = ${bound} ms`;
          line.met = s.p50 < bound;
        }
        lines.push(line);
      }

      log('row 3: sticky Strategy B vs direct standby calls');
      await breakMain(setup, '503');
      const counting = countingFetch(server.info.mainUrl);
      const sticky = makeClient(
        setup,
        server.info.mainUrl,
        { ...fast, strategy: 'B' },
        counting.fetch,
      );
      const directClient = makeClient(setup, server.info.standbyUrl, fast);
      await sticky.checkout(['ItemA']);
      if (sticky.activeService !== 'standby') throw new Error('Strategy B did not switch');
      await directClient.checkout(['ItemA']);
      for (let i = 0; i < (quick ? 20 : 200); i++) {
        await sticky.checkout(['ItemA']);
        await directClient.checkout(['ItemA']);
      }
      const mainBefore = counting.counts.main;
      const calls = quick ? 50 : 500;
      const stickyTimes: number[] = [];
      const directCallTimes: number[] = [];
      // Interleaved blocks, so load changes on the machine hit both sides alike.
      for (let block = 0; block < 10; block++) {
        for (const [client, out] of [
          [sticky, stickyTimes],
          [directClient, directCallTimes],
        ] as const) {
          for (let i = 0; i < calls / 10; i++) {
            const start = performance.now();
            const { leases } = await client.checkout(['ItemA']);
            out.push(performance.now() - start);
            if (client === sticky && leases[0]?.servedBy !== 'standby') {
              throw new Error('sticky client left the standby');
            }
          }
        }
      }
      const mainWhileSticky = counting.counts.main - mainBefore;
      await sticky.close();
      await directClient.close();
      await clearFaults(server);
      const st = summarize(stickyTimes);
      const dc = summarize(directCallTimes);
      const stickyRatio = ratioOf(st.p50, dc.p50);
      lines.push({
        row: '3 sticky B',
        metric: 'per-call checkout while Strategy B is sticky on the standby, p50',
        ours: st.p50,
        unit: 'ms',
        reference: dc.p50,
        referenceLabel: 'same call, client on the standby directly',
        ...(stickyRatio === undefined ? {} : { ratio: stickyRatio }),
        target: `ratio < ${STICKY_OVERHEAD_TARGET}`,
        met: stickyRatio !== undefined && stickyRatio < STICKY_OVERHEAD_TARGET,
        details: {
          calls: st.n,
          meanRatio: st.mean / dc.mean,
          stickyMeanMs: st.mean,
          directMeanMs: dc.mean,
          stickyP99Ms: st.p99,
          directP99Ms: dc.p99,
        },
      });
      lines.push({
        row: '3 sticky main',
        metric: 'main requests while Strategy B is sticky',
        ours: mainWhileSticky,
        unit: '',
        target: '= 0',
        met: mainWhileSticky === 0,
        details: { calls: st.n },
      });
      return lines;
    } finally {
      await server.close();
    }
  },
};
