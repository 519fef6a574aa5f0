// Finding 9 of issue 28: a laptop that sleeps through `refreshAt` renews hours late. A lease is
// checked out and kept (`keepAlive`, no jitter); then the machine "sleeps" 7 hours: the wall
// clock (the client's `now`, and the mock server's admin clock) jumps 7 h while the process's
// timers and `performance.now()` stand still, as they do in a real sleep (Node's timers count
// running time). `refreshAt` (6 h after issue) has passed at wake. The script then waits, in real
// time, up to 75 s for the keeper's renewal: the promise is within 60 s of wake.
// Usage: ATTACK_PROJECT=<project with the packed packages> node 09-sleep.mjs (takes up to 75 s)
import { HOUR, hours, load, seconds, startMock, verdict } from './lib/harness.mjs';

const { createLicensingClient } = await load('@standby-licensing/sdk');

const WINDOW_MS = 75_000;
const mock = await startMock();
try {
  const wall = { skewMs: 0 };
  const client = createLicensingClient({
    mainUrl: mock.info.mainUrl,
    standbyUrl: mock.info.standbyUrl,
    // Minted on demand at the mock's clock, so a token asked for after the sleep is fresh.
    auth: { idToken: () => mock.idToken() },
    trust: { rootCertificates: [mock.standbyRoot, { pem: mock.mainRootPem }] },
    hardwareId: 'hw-1',
    now: () => Date.now() + wall.skewMs,
  });
  const renewed = new Promise((done) => client.on('leaseRenewed', () => done(performance.now())));
  const [lease] = (await client.checkout(['ItemA'])).leases;
  client.keepAlive([lease], { jitterRatio: 0 });

  // The lid closes for 7 hours: the wall clocks move, the timers do not.
  wall.skewMs += 7 * HOUR;
  await mock.admin('PUT', '/clock', { offsetMs: 7 * HOUR });
  const woke = performance.now();
  const at = await Promise.race([
    renewed,
    new Promise((done) => setTimeout(() => done(undefined), WINDOW_MS)),
  ]);
  const held = client.status().leases.find((l) => l.item === 'ItemA');
  const has = client.has('ItemA');
  await client.close();

  const left = held ? held.expiresAt - (Date.now() + wall.skewMs) : 0;
  const text =
    at === undefined
      ? `slept 7 h past issue (refreshAt at 6 h): no renewal within ${seconds(WINDOW_MS)} of wake (the keeper's timer counts running time); has() ${has}, the lease ends in ${hours(left)}`
      : `slept 7 h past issue (refreshAt at 6 h): renewed ${seconds(at - woke)} after wake; has() ${has}, the lease now ends in ${hours(left)}`;
  verdict(at !== undefined && at - woke <= 65_000 && has ? 'HOLDS' : 'BROKEN', text);
} finally {
  await mock.close();
}
