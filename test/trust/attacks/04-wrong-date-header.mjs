// Finding 4 of issue 28: a wrong `Date` header refuses genuine leases. A lying HTTP server in
// front of the mock server (a proxy or load balancer with a wrong clock) passes every answer
// through but rewrites its `Date`: 2 min behind, 1 h behind, 9 h ahead, 1970. A client with a
// right clock checks a lease out, renews and verifies it through the liar, on main and on the
// standby (main down). Then a JWK set answer (no fresh token) whose `Date` is 9 h ahead: the
// client that holds a standby lease verifies a main lease through it; its lease must not end.
// Usage: ATTACK_PROJECT=<project with the packed packages> node 04-wrong-date-header.mjs
import {
  closedPort,
  describeError,
  detail,
  HOUR,
  load,
  MINUTE,
  startMock,
  verdict,
} from './lib/harness.mjs';
import { startLyingServer } from './lib/lying-server.mjs';

const { createLicensingClient } = await load('@standby-licensing/sdk');

const mock = await startMock();
const lie = { date: undefined, jwksOnly: false, mainAuthzDown: false };
const liar = await startLyingServer(mock.origin, async ({ path, forward }) => {
  if (lie.mainAuthzDown && path.startsWith('/main/authz/')) {
    return { status: 503, headers: { 'content-type': 'text/html' }, body: '<h1>down</h1>' };
  }
  if (!lie.date) return undefined;
  if (lie.jwksOnly && !path.includes('/.well-known/jwks.json')) return undefined;
  const real = await forward();
  return { ...real, headers: { ...real.headers, date: lie.date(real.headers.date) } };
});
const deadMain = `http://127.0.0.1:${await closedPort()}/main`;
const idToken = await mock.idToken();

function clientVia(service) {
  return createLicensingClient({
    mainUrl: service === 'standby' ? deadMain : liar.url(mock.info.mainUrl),
    standbyUrl: liar.url(mock.info.standbyUrl),
    auth: { idToken: () => idToken },
    trust: { rootCertificates: [mock.standbyRoot, { pem: mock.mainRootPem }] },
    hardwareId: 'hw-1',
    failover: { mainAttempts: 1, attemptTimeoutMs: 3_000, retryAfterMaxMs: 10 },
  });
}

/** Checkout, renew, verify and has() through the liar; `ok` or the first error's code. */
async function genuineLease(service) {
  const client = clientVia(service);
  try {
    const [lease] = (await client.checkout(['ItemA'])).leases;
    if (lease.servedBy !== service) return `served by ${lease.servedBy}`;
    const left = lease.expiresAt - Date.now();
    if (left < 8 * HOUR - 2 * MINUTE) return `lease ends in ${(left / HOUR).toFixed(1)} h`;
    const renewed = await client.renew(lease);
    await client.verify(renewed.token, { service });
    return client.has('ItemA') ? 'ok' : 'has() false';
  } catch (error) {
    return describeError(error);
  } finally {
    await client.close();
  }
}

const shifted = (ms) => (real) => new Date(Date.parse(real) + ms).toUTCString();
const outcomes = [];
try {
  for (const [name, date] of [
    ['2 min behind', shifted(-2 * MINUTE)],
    ['1 h behind', shifted(-HOUR)],
    ['9 h ahead', shifted(9 * HOUR)],
    ['at 1970', () => new Date(0).toUTCString()],
  ]) {
    lie.date = date;
    const main = await genuineLease('main');
    const standby = await genuineLease('standby');
    outcomes.push(main, standby);
    detail(
      `proxy Date ${name}: checkout+renew+verify of a genuine lease: main ${main}, standby ${standby}`,
    );
  }

  // A JWK set's Date 9 h ahead, after the client learnt the time from a genuine standby lease.
  lie.date = undefined;
  const other = createLicensingClient({
    mainUrl: mock.info.mainUrl,
    standbyUrl: mock.info.standbyUrl,
    auth: { idToken: () => idToken },
    trust: { rootCertificates: [mock.standbyRoot, { pem: mock.mainRootPem }] },
    hardwareId: 'hw-1',
  });
  const [mainLease] = (await other.checkout(['ItemB'])).leases;
  await other.close();
  lie.mainAuthzDown = true;
  const client = clientVia('main');
  const [lease] = (await client.checkout(['ItemA'])).leases;
  lie.date = shifted(9 * HOUR);
  lie.jwksOnly = true;
  const verified = await client.verify(mainLease.token, { service: 'main' }).then(
    (l) => `verified ${l.item}`,
    (error) => describeError(error),
  );
  const has = client.has('ItemA');
  await client.close();
  detail(
    `main's JWK set with a Date 9 h ahead (no fresh token): ${verified}; the held ${lease.servedBy} lease: has() ${has}`,
  );
  const ok = outcomes.filter((o) => o === 'ok').length;
  const refusals = [...new Set(outcomes.filter((o) => o !== 'ok'))];
  verdict(
    ok === outcomes.length && has ? 'HOLDS' : 'BROKEN',
    `proxy Date 2 min/1 h behind, 9 h ahead, 1970: ${ok} of ${outcomes.length} genuine checkouts (main, standby) passed${refusals.length ? ` (${refusals.join(', ')})` : ''}; a JWK set's Date 9 h ahead: has() ${has}`,
  );
} finally {
  await liar.close();
  await mock.close();
}
