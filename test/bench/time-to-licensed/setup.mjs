// Bench row 8, setup (run once in the consumer project that installed the packed tarballs):
// starts the mock server from its package, writes both roots with the SDK's `standby-licensing
// embed-root` bin (JSON), checks out two leases into a file lease store and writes what the
// measured app needs to `app-config.json`. The mock server is stopped before the app runs, so the
// app's restore() is offline: nothing listens at the URLs it is given.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startServer } from '@standby-licensing/mock-server';
import { createLicensingClient } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('@standby-licensing/sdk/package.json');
const bin = join(
  dirname(manifestPath),
  JSON.parse(readFileSync(manifestPath, 'utf8')).bin['standby-licensing'],
);
const embedRoot = (args, env = {}) =>
  promisify(execFile)(process.execPath, [bin, 'embed-root', '--force', ...args], {
    env: { ...process.env, ...env },
  });

const server = await startServer({ port: 0, host: '127.0.0.1', state: 'active' });
try {
  const { mainUrl, standbyUrl, idpUrl, apiKey } = server.info;
  const folder = process.cwd();
  await embedRoot(['--standby-url', standbyUrl, '--new-key', '--out', 'standby-root.json'], {
    STANDBY_LICENSING_API_KEY: apiKey,
  });
  await embedRoot(['--jwks-url', `${mainUrl}/.well-known/jwks.json`, '--out', 'main-root.json']);
  const rootCertificates = ['standby-root.json', 'main-root.json'].map(
    (file) => JSON.parse(readFileSync(join(folder, file), 'utf8')).rootCertificate,
  );
  const signIn = async () => {
    const response = await fetch(`${idpUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'bench-time-to-licensed' }),
    });
    if (!response.ok) throw new Error(`ID token: HTTP ${response.status}`);
    return (await response.json()).id_token;
  };
  const leaseFile = join(folder, 'leases.json');
  const hardwareId = 'bench-time-to-licensed';
  const client = createLicensingClient({
    mainUrl,
    standbyUrl,
    auth: { idToken: signIn },
    trust: { rootCertificates },
    leaseStore: createFileLeaseStore(leaseFile),
    hardwareId,
  });
  const { leases } = await client.checkout(['ItemA', 'ItemB']);
  if (leases.length !== 2) throw new Error(`checked out ${leases.length} leases, expected 2`);
  writeFileSync(
    join(folder, 'app-config.json'),
    `${JSON.stringify({ mainUrl, standbyUrl, rootCertificates, leaseFile, hardwareId }, null, 2)}\n`,
  );
} finally {
  await server.close();
}
process.stdout.write('setup done\n');
process.exit(0);
