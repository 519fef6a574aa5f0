// Finding 2 of issue 28: a running client whose clock is set back keeps `has()` true for ever.
// The lease is checked out online, the network goes, the user sets the clock back 7 hours and
// keeps the app running. 8 h 1 min of running (and then 24 h) pass on the monotonic clock
// (`performance.now()` faked in this process, as vitest's fake `performance` would) while the
// wall clock, set back, reads 7 h before the checkout. Then `has()`, `status()` and `verify()`.
// Usage: ATTACK_PROJECT=<project with the packed packages> node 02-clock-set-back-while-running.mjs
import {
  describeError,
  fakeMonotonic,
  HOUR,
  load,
  MINUTE,
  offlineFetch,
  rejection,
  startMock,
  verdict,
} from './lib/harness.mjs';

const monotonic = fakeMonotonic();
const { createLicensingClient } = await load('@standby-licensing/sdk');

const mock = await startMock();
try {
  const idToken = await mock.idToken();
  const wall = { skewMs: 0 };
  const net = { up: true };
  const client = createLicensingClient({
    mainUrl: mock.info.mainUrl,
    standbyUrl: mock.info.standbyUrl,
    auth: { idToken: () => idToken },
    trust: { rootCertificates: [mock.standbyRoot, { pem: mock.mainRootPem }] },
    hardwareId: 'hw-1',
    now: () => Date.now() + wall.skewMs,
    fetch: (input, init) => (net.up ? fetch(input, init) : offlineFetch(input)),
  });
  const [lease] = (await client.checkout(['ItemA'])).leases;
  net.up = false;
  wall.skewMs = -7 * HOUR;

  monotonic.advance(8 * HOUR - MINUTE);
  const before = client.has('ItemA');
  monotonic.advance(2 * MINUTE);
  const after = client.has('ItemA');
  const held = client.status().leases.length;
  const verified = await rejection(client.verify(lease.token));
  monotonic.advance(16 * HOUR);
  const later = client.has('ItemA');
  await client.close();

  const text = `clock set back 7 h while running, offline: has() at 7 h 59 min of running ${before}, at 8 h 01 min ${after} (status() holds ${held}, verify() ${verified ? describeError(verified) : 'accepted'}), at 24 h ${later}`;
  verdict(before && !after && !later && held === 0 && verified ? 'HOLDS' : 'BROKEN', text);
} finally {
  await mock.close();
}
