// app-steps.mjs: what a licensed app does with the published packages, step by step, on
// whichever runtime runs it. test/runtime/app.cjs and app.mjs load the packages (by `require`
// and by `import`) and hand them to runApp, so every step runs against the module format the
// app chose; test/runtime/run.ts copies the three files into a consumer project that installed
// the packed tarballs, and runs each app on each runtime of the matrix (runtimes.ts).
//
// Plain JavaScript, no TypeScript and no dev tools: only what a consumer has, and only
// `node:` modules that Node, Bun and Deno all provide. Environment (set by run.ts):
//   STANDBY_RUNTIME_MOCK   the mock server's start line (JSON: mainUrl, standbyUrl, eventUrl,
//                          idpUrl, apiKey), with the admin API on (faults) and signed events
//   STANDBY_RUNTIME_EVENT_KEY  a PKCS#8 PEM file: the key the mock trusts for events
//   STANDBY_RUNTIME_WORK   a folder of this run's own (the file lease store)
// Modes (argv): `main` runs every step below but the proxy; `proxy` checks out through the proxy,
// set by HTTP_PROXY (the CommonJS app) or by the client's `proxy` option from
// STANDBY_RUNTIME_PROXY (the ES module app); run.ts reads the proxy's log to see that it did.
//
// It prints one JSON line on stdout: { runtime, format, mode, steps: [{ name, ms, detail }] },
// and on a failure { ..., failed: step, error } with exit code 1.
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';

/** `node v22.23.3`, `bun 1.4.5`, `deno 2.9.6`. */
export function runtimeLabel() {
  if (globalThis.Bun) return `bun ${globalThis.Bun.version}`;
  if (globalThis.Deno) return `deno ${globalThis.Deno.version.deno}`;
  return `node ${process.version}`;
}

async function json(response) {
  const text = await response.text();
  assert.ok(response.ok, `HTTP ${response.status} from ${response.url}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * Runs the app. `packages`: { sdk, sdkNode, testing, setupServer } as the app loaded them;
 * `roots`: { standbyRoot, mainRoot } (the modules `standby-licensing embed-root` wrote);
 * `loadMs`: how long loading them took.
 */
export async function runApp({ packages, roots, format, loadMs }) {
  const { sdk, sdkNode } = packages;
  const mode = process.argv[2] ?? 'main';
  const label = runtimeLabel();
  const mock = JSON.parse(process.env.STANDBY_RUNTIME_MOCK);
  const adminUrl = mock.mainUrl.replace(/\/main$/, '/admin');
  const work = process.env.STANDBY_RUNTIME_WORK;
  const steps = [{ name: 'load', ms: Math.round(loadMs), detail: `${format} entries` }];
  const report = (extra) =>
    console.log(JSON.stringify({ runtime: label, format, mode, steps, ...extra }));

  let current = 'setup';
  async function step(name, run) {
    current = name;
    const started = performance.now();
    const detail = await run();
    steps.push({ name, ms: Math.round(performance.now() - started), detail });
  }
  const admin = async (method, path) =>
    json(await fetch(`${adminUrl}${path}`, { method, headers: { accept: 'application/json' } }));

  // The app's sign-in: the mock's built-in issuer stands in for the app's OIDC provider.
  const sub = `runtime-${label.replace(/\W+/g, '-')}-${format}`;
  const signIn = async () =>
    (
      await json(
        await fetch(`${mock.idpUrl}/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ sub }),
        }),
      )
    ).id_token;
  const options = {
    mainUrl: mock.mainUrl,
    standbyUrl: mock.standbyUrl,
    auth: { idToken: signIn },
    trust: { rootCertificates: [roots.standbyRoot, roots.mainRoot] },
    failover: { mainAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 },
    hardwareId: sub,
  };

  try {
    if (mode === 'proxy') {
      await step('proxy', async () => {
        const option = process.env.STANDBY_RUNTIME_PROXY;
        const proxied = option ?? process.env.HTTP_PROXY ?? process.env.http_proxy;
        assert.ok(proxied, 'the proxy run needs HTTP_PROXY or STANDBY_RUNTIME_PROXY');
        const client = sdk.createLicensingClient(option ? { ...options, proxy: option } : options);
        const { leases } = await client.checkout(['ItemA']);
        assert.equal(leases[0].servedBy, 'main');
        await client.verify(leases[0].token, { item: 'ItemA', service: 'main' });
        await client.release(leases);
        await client.close();
        return `checkout, verify, release with ${option ? 'the proxy option' : 'HTTP_PROXY'}=${proxied}`;
      });
      report();
      return;
    }

    const client = sdk.createLicensingClient(options);
    let lease;
    await step('checkout', async () => {
      const { leases, denied } = await client.checkout(['ItemA']);
      assert.equal(denied.length, 0);
      lease = leases[0];
      assert.equal(lease.servedBy, 'main');
      assert.equal(lease.claims.ItemA, true);
      return 'ItemA from main';
    });

    await step('verify', async () => {
      const verified = await client.verify(lease.token, { item: 'ItemA', service: 'main' });
      assert.equal(verified.claims.jti, lease.claims.jti);
      const [header, payload, signature] = lease.token.split('.');
      const forged = base64url(JSON.stringify({ ...lease.claims, exp: lease.claims.exp + 86_400 }));
      assert.notEqual(forged, payload);
      const refusal = await client.verify(`${header}.${forged}.${signature}`).then(
        () => undefined,
        (error) => error,
      );
      assert.ok(sdk.isLicensingError(refusal), `a tampered lease was not refused: ${refusal}`);
      assert.equal(refusal.code, 'TOKEN_INVALID');
      return `main lease verified; a tampered one ${refusal.code}`;
    });

    await step('failover', async () => {
      const failovers = [];
      const off = client.on('failover', (event) => failovers.push(event));
      // The SDK's telemetry (docs/observability.md), as an APM would subscribe to it.
      const published = [];
      const onFailover = (message) => published.push(['failover', message]);
      const traced = {
        start: (message) => published.push(['start', message]),
        end() {},
        asyncStart() {},
        asyncEnd: (message) => published.push(['asyncEnd', message]),
        error() {},
      };
      diagnostics.subscribe('standby-licensing:failover', onFailover);
      const tracing = diagnostics.tracingChannel('standby-licensing:checkout');
      tracing.subscribe(traced);
      let lease;
      await admin('POST', '/scenarios/main-down');
      try {
        const { leases } = await client.checkout(['ItemB']);
        lease = leases[0];
        assert.equal(lease.servedBy, 'standby');
        await client.verify(lease.token, { item: 'ItemB', service: 'standby' });
        await client.release(leases);
      } finally {
        await admin('DELETE', '/faults');
        if (typeof off === 'function') off();
        diagnostics.unsubscribe('standby-licensing:failover', onFailover);
        tracing.unsubscribe(traced);
      }
      assert.equal(failovers.length, 1, 'one failover event');
      assert.equal(failovers[0].to, 'standby');
      assert.deepEqual(
        published.map(([name]) => name),
        ['start', 'failover', 'asyncEnd'],
        'the checkout traced, the failover published inside it',
      );
      const ended = published[2][1];
      assert.equal(ended.result.leases[0].servedBy, 'standby');
      const text = JSON.stringify(published);
      assert.ok(!text.includes(lease.token.split('.')[1]), 'a lease token in a payload');
      assert.ok(!text.includes(sub), 'the hardware id in a payload');
      return `main down: ItemB from the standby (strategy ${failovers[0].strategy}, main ${failovers[0].reason}), verified; traced on diagnostics_channel`;
    });
    await client.release([lease]).catch(() => undefined);
    await client.close();

    let hardwareId;
    await step('machineId', async () => {
      hardwareId = await sdkNode.machineId({ appId: 'com.example.runtime-matrix' });
      assert.match(hardwareId, /^[0-9a-f]{64}$/);
      assert.equal(await sdkNode.machineId({ appId: 'com.example.runtime-matrix' }), hardwareId);
      return `${hardwareId.slice(0, 8)}… (HMAC of the OS id)`;
    });

    await step('restore', async () => {
      await mkdir(work, { recursive: true });
      const storePath = join(work, `leases-${format}.json`);
      const stored = {
        ...options,
        hardwareId,
        leaseStore: sdkNode.createFileLeaseStore(storePath),
      };
      const online = sdk.createLicensingClient(stored);
      const { leases } = await online.checkout(['ItemA']);
      await online.close();
      // A restart without a network: every request fails, and so does the sign-in.
      let requests = 0;
      const offline = sdk.createLicensingClient({
        ...stored,
        auth: {
          idToken: () => {
            throw new Error('offline: no sign-in');
          },
        },
        fetch: () => {
          requests += 1;
          return Promise.reject(new TypeError('offline'));
        },
      });
      const restored = await offline.restore();
      assert.equal(requests, 0, 'restore() made a network request');
      assert.deepEqual(
        restored.leases.map((l) => [l.item, l.claims.jti]),
        [['ItemA', leases[0].claims.jti]],
      );
      assert.equal(offline.has('ItemA'), true);
      await offline.close();
      const saved = JSON.parse(await readFile(storePath, 'utf8'));
      assert.equal(typeof saved, 'object');
      return 'file lease store; restore() offline gave ItemA back, no request';
    });

    await step('feed', async () => {
      const privateKey = await readFile(process.env.STANDBY_RUNTIME_EVENT_KEY, 'utf8');
      const events = sdk.createEventClient({
        eventUrl: mock.eventUrl,
        signer: { privateKey },
        auth: { privateKey },
      });
      const source = `${sub}-feed`;
      await events.put({ eventType: 'RuntimeChecked', eventSourceId: source, data: { format } });
      const read = await events.collect(source, { limit: 10 });
      assert.deepEqual(
        read.map((event) => [event.eventType, event.data]),
        [['RuntimeChecked', { format }]],
      );
      return 'signed event put, read back with an SDK-signed read token';
    });

    await step('testing kit', async () => {
      const msw = packages.setupServer(...packages.testing.mainRefused(mock.mainUrl));
      msw.listen({ onUnhandledRequest: 'bypass' });
      try {
        const drilled = sdk.createLicensingClient(options);
        const { leases } = await drilled.checkout(['ItemA']);
        assert.equal(leases[0].servedBy, 'standby');
        await drilled.release(leases);
        await drilled.close();
      } finally {
        msw.close();
      }
      return 'msw mainRefused: ItemA from the standby';
    });
    report();
  } catch (error) {
    report({ failed: current, error: String(error?.stack ?? error) });
    process.exitCode = 1;
  } finally {
    // msw (the testing kit's peer) opens a BroadcastChannel when it is imported and unrefs it
    // where it can; Deno's cannot be unref'd, so on Deno the process would never end on its
    // own once msw is loaded (the SDK itself leaves nothing open: see docs/runtimes.md).
    if (globalThis.Deno) process.exit();
  }
}

function base64url(text) {
  const bytes = new TextEncoder().encode(text);
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}
