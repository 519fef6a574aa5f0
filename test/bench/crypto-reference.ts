import { createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { type Measured, measureSync } from './bench-helpers.js';

/** A lease-sized signing input (header.payload of a standby token), for the raw references. */
export function leaseSigningInput(): Buffer {
  const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const iat = Math.floor(Date.now() / 1000);
  return Buffer.from(
    `${segment({ alg: 'RS256', kid: 'bench-key', typ: 'JWT' })}.${segment({
      ItemA: true,
      lic: '2f0c4a8e-61b5-4a2f-9d0e-2a4b7f0e9c11',
      jti: 'a3c1e7d2-5b8f-4c6a-8e1d-7f2b9a0c4d35',
      iss: 'http://127.0.0.1:40000/standby',
      sub: 'bench-user',
      iat,
      exp: iat + 28_800,
      rfr: iat + 21_600,
      hw: 'hw-1',
      version: '1.0.0',
    })}`,
  );
}

/** A fresh RSA-2048 key pair. */
export function rsa2048(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

/**
 * Raw `crypto.sign('sha256', …)` RSA-2048 (PKCS#1 v1.5) signatures over `input`, one core (a
 * synchronous loop on this thread).
 */
export function measureRawSign(
  privateKey: KeyObject,
  input: Buffer,
  durationMs: number,
  warmupMs?: number,
): Measured {
  return measureSync(() => sign('sha256', input, privateKey), durationMs, warmupMs);
}

// One synchronous crypto.sign loop per worker thread (plain JavaScript: runs without a loader).
const PARALLEL_SIGN_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { sign } = require('node:crypto');
const { key, input, durationMs } = workerData;
parentPort.once('message', () => {
  const start = performance.now();
  let ops = 0;
  while (performance.now() - start < durationMs) {
    for (let i = 0; i < 8; i++) sign('sha256', input, key);
    ops += 8;
  }
  parentPort.postMessage(ops);
});`;

/**
 * Raw `crypto.sign` RSA-2048 on `threads` worker threads at once (each a synchronous loop for
 * `durationMs`): what the machine's cores deliver together. Returns the summed operations and
 * the wall-clock time of the slowest thread; `cpuMs` is this process's CPU time over the run.
 */
export async function measureRawSignParallel(
  privateKey: KeyObject,
  input: Buffer,
  threads: number,
  durationMs: number,
): Promise<Measured> {
  const workers = Array.from(
    { length: threads },
    () =>
      new Worker(PARALLEL_SIGN_WORKER, {
        eval: true,
        workerData: { key: privateKey, input, durationMs },
      }),
  );
  try {
    await Promise.all(
      workers.map((worker) => new Promise((resolve) => worker.once('online', resolve))),
    );
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const counts = await Promise.all(
      workers.map(
        (worker) =>
          new Promise<number>((resolve, reject) => {
            worker.once('message', resolve);
            worker.once('error', reject);
            worker.postMessage('go');
          }),
      ),
    );
    const cpu = process.cpuUsage(cpuStart);
    return {
      ops: counts.reduce((sum, n) => sum + n, 0),
      wallMs: performance.now() - start,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

/** Raw `crypto.verify` RSA-2048 of `signature` over `input`, one core. */
export function measureRawVerify(
  publicKey: KeyObject,
  input: Buffer,
  signature: Buffer,
  durationMs: number,
  warmupMs?: number,
): Measured {
  return measureSync(
    () => {
      if (!verify('sha256', input, publicKey, signature)) {
        throw new Error('reference verify failed');
      }
    },
    durationMs,
    warmupMs,
  );
}

/** A public KeyObject from an RSA JWK (`n`, `e`). */
export function publicKeyFromJwk(jwk: { n: string; e: string }): KeyObject {
  return createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
}
