// A licensed app in its own Node process, driven line by line on stdin by the attacks that kill
// it (`kill -9`), end it with SIGTERM or restart it with its clock set back; it answers each
// command with one JSON line on stdout. It loads the built SDK from ATTACK_PROJECT.
//
// argv[2]: JSON { mainUrl, standbyUrl, roots, idToken, storePath, clock, offline? } where
// `clock` is the app's wall clock at start (ms; it then runs at real speed).
// Commands: `restore`, `has <item>`, `clock <ms>` (set the wall clock), `use <item> <untilMs>
// <stepMs> <pauseMs> [<slowFromMs> <slowPauseMs>]` (the user works: the clock moves `stepMs`
// every `pauseMs` of real time up to `untilMs`, every `slowPauseMs` once it reads `slowFromMs`,
// `has(item)` asked at each step; answers the first and last clock readings at which it was
// true), `status`, `release-on-exit`, `close`.
import { createInterface } from 'node:readline';
import { load } from './harness.mjs';

const { createLicensingClient, isLicensingError } = await load('@standby-licensing/sdk');
const { createFileLeaseStore, releaseOnExit } = await load('@standby-licensing/sdk/node');

const config = JSON.parse(process.argv[2] ?? '{}');
let offsetMs = config.clock - Date.now();
const clock = () => Date.now() + offsetMs;

const client = createLicensingClient({
  mainUrl: config.mainUrl,
  standbyUrl: config.standbyUrl,
  auth: { idToken: () => config.idToken },
  trust: { rootCertificates: config.roots },
  hardwareId: 'hw-1',
  leaseStore: createFileLeaseStore(config.storePath),
  now: clock,
  failover: { mainAttempts: 1, attemptTimeoutMs: 2_000 },
  fetch: (input, init) =>
    config.offline
      ? Promise.reject(new TypeError('fetch failed: offline'))
      : globalThis.fetch(input, init),
});

const pause = (ms) => new Promise((done) => setTimeout(done, ms));

async function run(line) {
  const [command, ...args] = line.trim().split(/\s+/);
  switch (command) {
    case 'restore': {
      const { leases } = await client.restore();
      return { leases: leases.map((lease) => lease.leaseId), clock: clock() };
    }
    case 'has':
      return { has: client.has(args[0]), clock: clock() };
    case 'clock':
      offsetMs = Number(args[0]) - Date.now();
      return { clock: clock() };
    case 'use': {
      const [until, step, every, slowFrom = until, slowEvery = every] = args.slice(1).map(Number);
      const item = args[0];
      let first;
      let last;
      for (let at = clock(); ; at = Math.min(at + step, until)) {
        offsetMs = at - Date.now();
        if (client.has(item)) {
          first ??= at;
          last = at;
        }
        if (at >= until) break;
        await pause(at >= slowFrom ? slowEvery : every);
      }
      return { first: first ?? null, last: last ?? null };
    }
    case 'status': {
      const status = client.status();
      return {
        leases: status.leases.length,
        storeError: 'storeError' in status ? (status.storeError?.code ?? null) : 'no such field',
      };
    }
    case 'release-on-exit':
      releaseOnExit(client);
      return { watching: true };
    case 'close':
      await client.close();
      return { closed: true };
    default:
      throw new Error(`unknown command ${command}`);
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  run(line).then(
    (value) => process.stdout.write(`${JSON.stringify(value)}\n`),
    (error) =>
      process.stdout.write(
        `${JSON.stringify({
          error: isLicensingError(error) ? error.code : String(error),
          ...(error?.reason ? { reason: error.reason } : {}),
        })}\n`,
      ),
  );
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
