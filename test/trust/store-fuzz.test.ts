// Property: whatever the lease store holds (random text, random JSON, a genuine store edited in
// any way, tokens of other devices, of other answers or signed by a stranger planted in it),
// restore() resolves with leases whose tokens are genuine leases of this device for their item,
// or rejects with a LicensingError coded LEASE_STORE_INVALID or CLOCK_ROLLBACK: never anything
// else (DECISIONS.md "Lease trust (third wave)": "Every failure of the SDK is a LicensingError
// with a code"). Runs: TRUST_FUZZ_RUNS (default 150), seed: TRUST_FUZZ_SEED (default 19).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestCa, createTestSigningKey } from '@sdk-test/helpers/test-pki.js';
import { isLicensingError, type LicensingClientOptions } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { offline } from '@test/helpers/lying-network.js';
import {
  clearFaults,
  clientFor,
  type MockLicensing,
  mintIdToken,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { type StoreMaterial, storeText } from '@test/helpers/store-arbitraries.js';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';

const RUNS = Number(process.env.TRUST_FUZZ_RUNS ?? 150);
const SEED = Number(process.env.TRUST_FUZZ_SEED ?? 19);
/** Room for long runs; the default run takes a few seconds. */
const TIMEOUT_MS = 30_000 + RUNS * 100;
const ALLOWED_CODES = ['LEASE_STORE_INVALID', 'CLOCK_ROLLBACK'];

let mock: MockLicensing;
let folder: string;
let material: StoreMaterial;
/** Genuine lease tokens of this device (hw-1), by token: the item each grants. */
const genuine = new Map<string, string>();
/** The time the property runs at: a minute after the checkouts. */
let now: number;

function clientOn(path: string, extra: Partial<LicensingClientOptions> = {}) {
  return clientFor(mock, {
    leaseStore: createFileLeaseStore(path),
    failover: { mainAttempts: 1 },
    ...extra,
  }).client;
}

beforeAll(async () => {
  mock = await startMockLicensing();
  folder = await mkdtemp(join(tmpdir(), 'trust-fuzz-'));
  const path = join(folder, 'genuine.json');
  const client = clientOn(path);
  const main = (await client.checkout(['ItemA', 'ItemB'])).leases;
  await setMainFault(mock.server, { mode: 'error', status: 503 });
  const standby = (await client.checkout(['ItemC'])).leases;
  await clearFaults(mock.server);
  await client.close();
  for (const lease of [...main, ...standby]) genuine.set(lease.token, lease.item);

  // Tokens that are signed for real but are no lease of this device.
  const otherDevice = clientOn(join(folder, 'other.json'), { hardwareId: 'pc-other' });
  const [foreignLease] = (await otherDevice.checkout(['ItemA'])).leases;
  await otherDevice.close();
  const release = await (
    await fetch(`${mock.server.info.mainUrl}/authz/.jwt?release&ItemA`, {
      headers: { authorization: `IdToken ${await mintIdToken(mock.server)}` },
    })
  ).text();
  const stranger = await createTestSigningKey(await createTestCa({ name: 'Stranger Root' }));
  const forged = await stranger.sign({ ItemA: true, jti: 'forged', lic: 'forged', hw: 'hw-1' });
  material = {
    document: (await readFile(path, 'utf8')).trim(),
    foreignTokens: [foreignLease!.token, release, forged],
    foreignKeys: [stranger.jwk],
  };
  now = Date.now() + 60_000;
});

afterAll(async () => {
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

it('the genuine store restores every lease (the control)', async () => {
  const path = join(folder, 'control.json');
  await writeFile(path, `${material.document}\n`);
  const client = clientOn(path, { fetch: offline, now: () => now });
  expect((await client.restore()).leases.map((lease) => lease.item)).toEqual([
    'ItemA',
    'ItemB',
    'ItemC',
  ]);
  await client.close();
});

/**
 * restore() on `path`, offline: the leases (each a genuine lease of this device for its item),
 * or undefined when it refused with an allowed code. Anything else fails the property.
 */
async function restoreOrRefuse(path: string) {
  const client = clientOn(path, { fetch: offline, now: () => now });
  try {
    const { leases } = await client.restore();
    for (const lease of leases) {
      expect(genuine.get(lease.token), 'a token that is no genuine lease').toBe(lease.item);
      expect(lease.claims).toMatchObject({ [lease.item]: true, hw: 'hw-1' });
    }
    return leases;
  } catch (error) {
    if (isLicensingError(error) && ALLOWED_CODES.includes(error.code)) return undefined;
    throw new Error(`restore() failed with something else: ${String(error)}`, { cause: error });
  } finally {
    await client.close();
  }
}

it(
  `restore() gives only genuine leases of this device or a LicensingError (${RUNS} runs, seed ${SEED})`,
  async () => {
    const path = join(folder, 'fuzzed.json');
    let resolved = 0;
    let withLeases = 0;
    await fc.assert(
      fc.asyncProperty(storeText(material), async (text) => {
        await writeFile(path, `${text}\n`);
        // Twice: what the first restore() left in the store (it may write) must hold as well.
        for (let restart = 0; restart < 2; restart++) {
          const leases = await restoreOrRefuse(path);
          if (restart > 0 || leases === undefined) continue;
          resolved += 1;
          if (leases.length > 0) withLeases += 1;
        }
      }),
      {
        numRuns: RUNS,
        seed: SEED,
        reporter(details) {
          if (!details.failed) return;
          const example = JSON.stringify(details.counterexample) ?? '';
          throw new Error(
            `Property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}")\n` +
              `Store text: ${example.slice(0, 1500)}\n` +
              `Cause: ${details.errorInstance instanceof Error ? details.errorInstance.message : ''}`,
          );
        },
      },
    );
    // The generator reaches both outcomes: stores that still give leases, and refused ones.
    expect(withLeases).toBeGreaterThan(0);
    expect(resolved).toBeLessThan(RUNS);
  },
  TIMEOUT_MS,
);
