import autocannon from 'autocannon';
import { type Measured, perCpuSecond, perWallSecond, ratioOf } from './bench-helpers.js';
import type { BenchLine, BenchRow } from './bench-result.js';
import { readCpuMs, spawnNodeScript, startChildServer, stopChild } from './child-server.js';
import { leaseSigningInput, measureRawSign, rsa2048 } from './crypto-reference.js';
import { mintToken } from './mock-api.js';

/** Target of row 1: leases per second at least this share of raw signatures per second. */
export const LEASE_THROUGHPUT_TARGET = 0.75;

function ratioField(ours: number, reference: number): { ratio?: number } {
  const ratio = ratioOf(ours, reference);
  return ratio === undefined ? {} : { ratio };
}

/**
 * Row 1: standby `GET /authz/.jwt?ItemA` leases per second over HTTP keep-alive (autocannon in
 * this process, the mock server alone in a child process), against raw `crypto.sign` RSA-2048
 * per second on one core. Every lease is one signature. Two lines: wall-clock rates, and rates
 * per CPU second of the measured process (server vs signing loop), which stay comparable when
 * other work shares the cores. A third line compares with a bare node:http server that does one
 * `crypto.sign` per request (no framework, auth or claims): the floor of HTTP plus a signature.
 */
export const leaseThroughputRow: BenchRow = {
  name: 'leases',
  id: 1,
  title: 'Standby /authz/.jwt leases per second vs raw RSA-2048 signing',
  async run({ quick, log }) {
    const { privateKey } = rsa2048();
    const input = leaseSigningInput();
    log('row 1: raw crypto.sign reference');
    const raw = measureRawSign(privateKey, input, quick ? 500 : 3000);

    // The floor for "HTTP plus one signature": a bare node:http server that signs per request.
    const bare = await spawnNodeScript('test/bench/bare-sign-server.ts', []);
    let floor: Measured;
    try {
      const { url } = JSON.parse(bare.firstLine) as { url: string };
      const target = `${url}/authz/.jwt?ItemA&hw=hw-1&version=1.0.0`;
      log('row 1: bare node:http + crypto.sign floor');
      await autocannon({ url: target, connections: 8, duration: 1 });
      const cpuBefore = readCpuMs(bare.child.pid!);
      const result = await autocannon({ url: target, connections: 8, duration: quick ? 2 : 5 });
      floor = {
        ops: result['2xx'],
        wallMs: result.duration * 1000,
        cpuMs: readCpuMs(bare.child.pid!) - cpuBefore,
      };
    } finally {
      await stopChild(bare.child);
    }

    const server = await startChildServer();
    try {
      const token = await mintToken(server);
      const url = `${server.info.standbyUrl}/authz/.jwt?ItemA&hw=hw-1&version=1.0.0`;
      const headers = { authorization: `IdToken ${token}`, accept: 'application/jwt' };
      const probe = await fetch(url, { headers });
      const body = await probe.text();
      if (probe.status !== 200 || body.split('.').length !== 3) {
        throw new Error(`standby /authz/.jwt answered ${probe.status}: ${body.slice(0, 200)}`);
      }
      const connections = 8;
      const seconds = quick ? 2 : 10;
      log('row 1: warm-up');
      await autocannon({ url, headers, connections, duration: quick ? 1 : 2 });
      log(`row 1: autocannon ${seconds} s, ${connections} keep-alive connections`);
      const cpuBefore = server.cpuMs();
      const result = await autocannon({ url, headers, connections, duration: seconds });
      const served = {
        ops: result['2xx'],
        wallMs: result.duration * 1000,
        cpuMs: server.cpuMs() - cpuBefore,
      };
      const details = {
        connections,
        durationS: result.duration,
        leases: served.ops,
        non2xx: result.non2xx,
        errors: result.errors,
        serverCpuMs: served.cpuMs,
        referenceCpuShare: raw.cpuMs / raw.wallMs,
        serverCpuShare: served.cpuMs / served.wallMs,
        latencyP50Ms: result.latency.p50,
        latencyP99Ms: result.latency.p99,
      };
      const line = (
        row: string,
        metric: string,
        ours: number,
        reference: number,
        label: string,
      ) => {
        const ratio = ratioOf(ours, reference);
        const out: BenchLine = {
          row,
          metric,
          ours,
          unit: '/s',
          reference,
          referenceLabel: label,
          target: `ratio >= ${LEASE_THROUGHPUT_TARGET}`,
          met: ratio !== undefined && ratio >= LEASE_THROUGHPUT_TARGET,
        };
        if (ratio !== undefined) out.ratio = ratio;
        return out;
      };
      return [
        {
          ...line(
            '1',
            'standby leases/s, HTTP keep-alive, wall clock',
            perWallSecond(served),
            perWallSecond(raw),
            'crypto.sign RSA-2048, 1 core',
          ),
          details,
        },
        line(
          '1 cpu',
          'standby leases per server CPU-second',
          perCpuSecond(served),
          perCpuSecond(raw),
          'crypto.sign per CPU-second',
        ),
        {
          row: '1 floor',
          metric: 'standby leases per CPU-second vs bare node:http + crypto.sign',
          ours: perCpuSecond(served),
          unit: '/s',
          reference: perCpuSecond(floor),
          referenceLabel: 'bare server, per CPU-second',
          ...ratioField(perCpuSecond(served), perCpuSecond(floor)),
          details: { floorWallPerS: perWallSecond(floor), floorRequests: floor.ops },
        },
      ];
    } finally {
      await server.close();
    }
  },
};
