// Finding 7 of issue 28: unbounded work on a hostile JWK set. A lying server in front of the
// mock passes main's genuine lease through but answers main's JWK set with
//   - 2 000 foreign keys beside the genuine one (each an x5c claiming main's root as issuer,
//     signed by another key: checking one costs a signature check), about 1.7 MB;
//   - 800 such keys (under 1 MiB) beside the genuine one;
//   - a 150 MB body (the real keys and 150 MB of padding, streamed in 64 KiB chunks).
// One checkout per case runs in a child process (attempt timeout 3 s, one main attempt) that
// reports its wall time, its peak RSS growth (maxRSS) and the WebCrypto signature checks it made.
// Then 20 tokens under 20 random `kid`s are verified against the standby: how many times the
// client fetched the standby's JWK set. Heavy (150 MB through loopback, +300 MB RSS on an SDK that
// reads it whole): run it alone.
// Usage: ATTACK_PROJECT=<project with the packed packages> node 07-hostile-key-sets.mjs
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describeError, detail, load, seconds, startMock, verdict } from './lib/harness.mjs';

const MIB = 1024 * 1024;

if (process.argv[2] === '--client') {
  // The measured app: one checkout, then a JSON line of what it cost.
  const config = JSON.parse(process.argv[3]);
  let verifies = 0;
  const subtleVerify = crypto.subtle.verify.bind(crypto.subtle);
  crypto.subtle.verify = (...args) => {
    verifies += 1;
    return subtleVerify(...args);
  };
  const { createLicensingClient } = await load('@standby-licensing/sdk');
  const client = createLicensingClient({
    mainUrl: config.mainUrl,
    standbyUrl: config.standbyUrl,
    auth: { idToken: () => config.idToken },
    trust: { rootCertificates: config.roots },
    hardwareId: 'hw-1',
    failover: { mainAttempts: 1, attemptTimeoutMs: 3_000 },
  });
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const maxBefore = process.resourceUsage().maxRSS * 1024;
  const started = performance.now();
  let outcome;
  try {
    const [lease] = (await client.checkout(['ItemA'])).leases;
    outcome = `served by ${lease.servedBy}`;
  } catch (error) {
    outcome = describeError(error);
  }
  const ms = performance.now() - started;
  const rssGrowth = process.resourceUsage().maxRSS * 1024 - Math.max(maxBefore, rssBefore);
  process.stdout.write(`${JSON.stringify({ outcome, ms, rssGrowth, verifies })}\n`);
  await client.close();
  process.exit(0);
}

// Loaded only here: the measured child above imports nothing but the SDK.
const { createCa, createSigningKey, x509 } = await import('./lib/test-pki.mjs');
const { startLyingServer } = await import('./lib/lying-server.mjs');
const { createLicensingClient } = await load('@standby-licensing/sdk');

/** `count` foreign JWKs whose one-certificate chain claims `rootPem` as issuer, signed by another. */
async function foreignKeys(count, rootPem) {
  const impostor = await createCa({ name: 'Impostor' });
  const keys = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ]);
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'CN=Foreign signing key',
    issuer: new x509.X509Certificate(rootPem).subject,
    publicKey: keys.publicKey,
    signingKey: impostor.keys.privateKey,
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 86_400_000),
  });
  const x5c = [Buffer.from(cert.rawData).toString('base64')];
  return Array.from({ length: count }, (_, i) => ({
    kty: 'RSA',
    kid: `foreign-${i}-${Math.random().toString(36).slice(2)}`,
    use: 'sig',
    alg: 'RS256',
    n: Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString('base64url'),
    e: 'AQAB',
    x5c,
  }));
}

const mock = await startMock();
const hostile = { main: undefined };
const fetches = { standby: 0, mainBytes: 0 };
const liar = await startLyingServer(mock.origin, async ({ path, forward }) => {
  if (path.startsWith('/standby/.well-known/jwks.json')) fetches.standby += 1;
  if (!path.startsWith('/main/.well-known/jwks.json') || !hostile.main) return undefined;
  const real = JSON.parse((await forward()).body.toString('utf8'));
  return hostile.main(real);
});
const idToken = await mock.idToken();
const config = {
  mainUrl: liar.url(mock.info.mainUrl),
  standbyUrl: liar.url(mock.info.standbyUrl),
  idToken,
  roots: [mock.standbyRoot, { pem: mock.mainRootPem }],
};

/** One checkout in a child process; resolves what it cost. */
function measuredCheckout() {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), '--client', JSON.stringify(config)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('exit', (code) =>
      code === 0 ? done(JSON.parse(out.trim())) : fail(new Error(`client exited ${code}`)),
    );
  });
}

const mb = (bytes) => `${(bytes / MIB).toFixed(1)} MB`;
const cost = (m) =>
  `${m.outcome} in ${seconds(m.ms)}, ${m.verifies} certificate signature checks, peak RSS +${mb(m.rssGrowth)}`;

try {
  const results = {};
  for (const count of [2_000, 800]) {
    const foreign = await foreignKeys(count, mock.mainRootPem);
    let size = 0;
    hostile.main = (real) => {
      const body = JSON.stringify({ keys: [...foreign, ...real.keys] });
      size = body.length;
      return { status: 200, headers: { 'content-type': 'application/json' }, body };
    };
    results[count] = await measuredCheckout();
    detail(
      `main's JWK set with ${count} foreign keys (${mb(size)}): checkout ${cost(results[count])}`,
    );
  }

  const PADDING = 150 * MIB;
  hostile.main = (real) => {
    fetches.mainBytes = 0;
    async function* body() {
      const head = `{"keys":${JSON.stringify(real.keys)},"padding":"`;
      fetches.mainBytes += head.length;
      yield head;
      const chunk = Buffer.alloc(64 * 1024, 'x');
      for (let sent = 0; sent < PADDING; sent += chunk.length) {
        fetches.mainBytes += chunk.length;
        yield chunk;
      }
      fetches.mainBytes += 2;
      yield '"}';
    }
    return { status: 200, headers: { 'content-type': 'application/json' }, body: body() };
  };
  const big = await measuredCheckout();
  detail(
    `main's JWK set of 150 MB: checkout ${cost(big)}; the liar got to send ${mb(fetches.mainBytes)}`,
  );
  // Beyond the issue: the genuine key, then a foreign key under the same kid (a set a proxy or a
  // cache merged badly). The genuine key is in the set; is it still found?
  const impostor = await createSigningKey(await createCa({ name: 'Duplicate' }));
  hostile.main = (real) => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ keys: [...real.keys, { ...impostor.jwk, kid: real.keys[0].kid }] }),
  });
  const duplicate = await measuredCheckout();
  detail(
    `beyond the issue: main's genuine key followed by a foreign key under the same kid: checkout ${duplicate.outcome}`,
  );
  hostile.main = undefined;

  // 20 tokens under random kids, signed by a stranger: JWK set fetches of the standby.
  const stranger = await createSigningKey(await createCa({ name: 'Stranger' }));
  const client = createLicensingClient({
    mainUrl: config.mainUrl,
    standbyUrl: config.standbyUrl,
    auth: { idToken: () => idToken },
    trust: { rootCertificates: config.roots },
    hardwareId: 'hw-1',
  });
  fetches.standby = 0;
  const refusals = new Set();
  for (let i = 0; i < 20; i++) {
    const now = Math.floor(Date.now() / 1000);
    const token = await stranger.sign(
      { ItemA: true, jti: `j${i}`, lic: 'l', hw: 'hw-1', iat: now, exp: now + 8 * 3600 },
      `random-${i}-${Math.random().toString(36).slice(2)}`,
    );
    await client.verify(token, { service: 'standby' }).then(
      () => refusals.add('accepted!'),
      (error) => refusals.add(describeError(error)),
    );
  }
  await client.close();
  detail(
    `20 tokens under 20 random kids: ${[...refusals].join(', ')}; the standby's JWK set fetched ${fetches.standby} times`,
  );

  const bounded =
    results[2_000].ms < 3_000 &&
    results[2_000].verifies < 20 &&
    results[800].verifies < 20 &&
    big.rssGrowth < 64 * MIB &&
    big.ms < 3_000 &&
    fetches.standby <= 1 &&
    !refusals.has('accepted!');
  verdict(
    bounded ? 'HOLDS' : 'BROKEN',
    `hostile JWK sets: 2 000 foreign keys ${results[2_000].outcome} in ${seconds(results[2_000].ms)} (${results[2_000].verifies} certificate signature checks; 800 keys: ${results[800].verifies}); 150 MB body ${big.outcome} in ${seconds(big.ms)}, peak RSS +${mb(big.rssGrowth)}; 20 random kids: ${fetches.standby} JWK set fetches`,
  );
} finally {
  await liar.close();
  await mock.close();
}
