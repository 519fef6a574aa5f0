// Shared by the attack scripts (test/trust/attacks/NN-*.mjs): the built packages loaded from the
// project ATTACK_PROJECT names (a fresh project where the packed tarballs are installed, as
// run.mjs makes one), the packed mock server started from its bin, verdict lines, a loopback
// port nothing listens on. Nothing here imports the repository's sources.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The project the packages are installed in (ATTACK_PROJECT, else the working directory). */
export const project = resolve(process.env.ATTACK_PROJECT ?? process.cwd());

const requireFrom = createRequire(join(project, 'package.json'));

/** The folder of an installed package, found the way Node looks up `node_modules`. */
export function packageDir(name) {
  for (const folder of requireFrom.resolve.paths(name) ?? []) {
    const candidate = join(folder, name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
  }
  throw new Error(`${name} is not installed in ${project} (set ATTACK_PROJECT)`);
}

/** The ES module file a specifier (`pkg` or `pkg/sub`) names in its package's `exports`. */
function entryOf(specifier) {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const sub = `.${specifier.slice(name.length)}`;
  const dir = packageDir(name);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  let target = manifest.exports?.[sub];
  if (target === undefined && sub === '.') target = manifest.module ?? manifest.main;
  while (target !== undefined && typeof target === 'object') {
    target = target.import ?? target.default ?? target.node;
  }
  if (typeof target !== 'string') throw new Error(`${specifier}: no ES entry in ${dir}`);
  return join(dir, target);
}

/** `import(specifier)` resolved from the project, not from this script's folder. */
export function load(specifier) {
  return import(pathToFileURL(entryOf(specifier)).href);
}

/** The installed SDK's version and where it is (for the header a script prints). */
export function sdkVersion() {
  const dir = packageDir('@standby-licensing/sdk');
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}

/**
 * Prints the script's one verdict line (after its details): `[HOLDS]` (the promise held), `[BROKEN]` (the attack got through),
 * `[N/A]` (the SDK lacks the API the attack needs: says which) or `[ERROR]`.
 */
export function verdict(status, text) {
  process.stdout.write(`[${status}] ${text}\n`);
}

/** Prints one attack's outcome under the verdict (the runner's log shows it, the table not). */
export function detail(text) {
  process.stdout.write(`  - ${text}\n`);
}

/** Minutes, hours and seconds for verdict lines. */
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const hours = (ms) => `${(ms / HOUR).toFixed(1)} h`;
export const minutes = (ms) => `${(ms / MINUTE).toFixed(1)} min`;
export const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** The code (and reason) of an error, or its message when it is no LicensingError. */
export function describeError(error) {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') {
    return error.reason ? `${error.code} (${error.reason})` : error.code;
  }
  return String(error?.message ?? error);
}

/** The rejection of `promise`, or undefined when it resolved. */
export async function rejection(promise) {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error;
  }
}

/** A loopback port nothing listens on (a service that is down). */
export async function closedPort() {
  const probe = createServer();
  await new Promise((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address();
  await new Promise((done) => probe.close(() => done()));
  return port;
}

function toPem(base64Der) {
  const lines = base64Der.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/**
 * Starts the packed mock server's bin (`standby-mock-server --port 0 --state active --admin`)
 * and reads its JSON start line. Resolves the server's URLs, the roots an app embeds (main's,
 * and a standby signing key made with `POST /signing-keys`), and helpers for its admin API.
 */
export async function startMock(extraArgs = []) {
  const bin = join(project, 'node_modules', '.bin', 'standby-mock-server');
  const child = spawn(bin, ['--port', '0', '--state', 'active', '--admin', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const info = await new Promise((done, fail) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end >= 0) done(JSON.parse(buffered.slice(0, end)));
    });
    child.on('exit', (code) => fail(new Error(`the mock server exited (${code}): ${stderr}`)));
  });
  const origin = new URL(info.mainUrl).origin;
  const admin = async (method, path, body) => {
    const response = await fetch(`${origin}/admin${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`admin ${method} ${path}: ${response.status}`);
    return response.json();
  };
  const signingKey = async () => {
    const response = await fetch(`${info.standbyUrl}/signing-keys`, {
      method: 'POST',
      headers: { 'service-apikey': info.apiKey },
    });
    if (response.status !== 201) throw new Error(`signing-keys: ${response.status}`);
    const body = await response.json();
    return { pem: body.rootCertificate, keyId: body.keyId };
  };
  const standbyRoot = await signingKey();
  const mainJwks = await (await fetch(`${info.mainUrl}/.well-known/jwks.json`)).json();
  const mainRootPem = toPem(mainJwks.keys[0].x5c.at(-1));
  return {
    info,
    origin,
    standbyRoot,
    mainRootPem,
    mainKid: mainJwks.keys[0].kid,
    admin,
    signingKey,
    /** An ID token for `sub` from the mock's issuer. */
    async idToken(sub = 'user-1') {
      const response = await fetch(`${info.idpUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sub, expiresInSeconds: 3600 }),
      });
      return (await response.json()).id_token;
    },
    close() {
      child.kill('SIGTERM');
      return new Promise((done) => child.once('exit', done));
    },
  };
}

/** A `fetch` for a client that must not reach the network. */
export async function offlineFetch(input) {
  throw new TypeError(`fetch failed: offline (${String(input)})`);
}

/**
 * Fakes the monotonic clock: `performance.now()` reads the real one plus what `advance(ms)`
 * added, as vitest's fake `performance` would (scripts have no vitest). Install it before the
 * SDK is loaded.
 */
export function fakeMonotonic() {
  const real = performance.now.bind(performance);
  let added = 0;
  performance.now = () => real() + added;
  return {
    advance(ms) {
      added += ms;
    },
  };
}
