// The worker side of the signing pool (`signing-pool.ts`): piscina loads this module in every
// worker thread and calls its default export once per task. Plain JavaScript on purpose: Node
// loads it as is from the sources (tsx, vitest) and from the build, with no TypeScript loader in
// the workers (docs/decisions/0010-lease-signing-worker-pool.md).
import { sign } from 'node:crypto';

/**
 * Signs a batch of jobs: each job's JWS signing inputs with the job's key (RSA PKCS#1 v1.5 over
 * the job's hash).
 *
 * @param {{ keys: import('node:crypto').KeyObject[];
 *   jobs: { key: number; hash: string; inputs: string[] }[] }} task
 *   `keys` arrive as clones of the main thread's KeyObjects (same native keys, no parsing);
 *   `job.key` indexes them.
 * @returns {string[][]} per job, the base64url signatures in the order of its inputs
 */
export default function signBatch({ keys, jobs }) {
  const out = new Array(jobs.length);
  for (let j = 0; j < jobs.length; j++) {
    const { key, hash, inputs } = jobs[j];
    const signatures = new Array(inputs.length);
    for (let i = 0; i < inputs.length; i++) {
      signatures[i] = sign(hash, Buffer.from(inputs[i]), keys[key]).toString('base64url');
    }
    out[j] = signatures;
  }
  return out;
}
