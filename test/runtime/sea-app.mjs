// sea-app.mjs: a small licensed command-line tool, shipped as a Node single executable
// application (SEA). test/runtime/run.ts bundles it with esbuild into one CommonJS file (the
// SDK and the two roots `standby-licensing embed-root` wrote beside it included), injects that
// into a copy of the `node` binary with postject, and runs the executable; docs/single-executable.md
// shows the same build.
//
//   licensed-tool checkout <item>   checks the item out (main, or the standby when main is down)
//   licensed-tool restore           the saved leases, verified again (no network request)
//
// Configuration (environment): LICENSING_MAIN_URL, LICENSING_STANDBY_URL, LICENSING_IDP_URL,
// LICENSING_STORE (the file lease store). Prints one JSON line; exit code 1 on a failure.
//
// Proxies: the SDK's own proxy support is a module it loads from node_modules at run time, which
// a single file does not carry; so the tool hands the SDK Node's own fetch, and the executable
// starts with `--use-env-proxy` (its SEA configuration's `execArgv`), which makes that fetch
// honour HTTP_PROXY, HTTPS_PROXY and NO_PROXY.
import { isSea } from 'node:sea';
import { createLicensingClient } from '@standby-licensing/sdk';
import { createFileLeaseStore, machineId } from '@standby-licensing/sdk/node';
import { mainRoot } from './roots/main-root.mjs';
import { rootCertificate as standbyRoot } from './roots/standby-root.mjs';

async function signIn() {
  // The app's OIDC sign-in; the mock server's issuer stands in for it.
  const response = await fetch(`${process.env.LICENSING_IDP_URL}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub: 'sea-user' }),
  });
  if (!response.ok) throw new Error(`sign-in: HTTP ${response.status}`);
  return (await response.json()).id_token;
}

async function main() {
  const [command, item] = process.argv.slice(2);
  const client = createLicensingClient({
    mainUrl: process.env.LICENSING_MAIN_URL,
    standbyUrl: process.env.LICENSING_STANDBY_URL,
    auth: { idToken: signIn },
    trust: { rootCertificates: [standbyRoot, mainRoot] },
    hardwareId: await machineId({ appId: 'com.example.licensed-tool' }),
    leaseStore: createFileLeaseStore(process.env.LICENSING_STORE),
    failover: { mainAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 },
    fetch: (input, init) => fetch(input, init),
  });
  const failovers = [];
  client.on('failover', (event) => failovers.push(event.strategy));
  try {
    if (command === 'checkout' && item) {
      const { leases } = await client.checkout([item]);
      const [lease] = leases;
      await client.verify(lease.token, { item, service: lease.servedBy });
      return { command, item, servedBy: lease.servedBy, failovers: failovers.length };
    }
    if (command === 'restore') {
      const { leases } = await client.restore();
      return { command, items: leases.map((lease) => [lease.item, lease.servedBy]) };
    }
    throw new Error('usage: licensed-tool checkout <item> | restore');
  } finally {
    await client.close();
  }
}

main().then(
  (result) => console.log(JSON.stringify({ sea: isSea(), ...result })),
  (error) => {
    console.log(JSON.stringify({ error: `${error.code ?? ''} ${error.message}`.trim() }));
    process.exitCode = 1;
  },
);
