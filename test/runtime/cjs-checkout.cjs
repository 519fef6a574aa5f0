// cjs-checkout.cjs: what a CommonJS app (an Electron main process, a Jest setup file) does with
// the published packages, run on the lowest Node their `engines` allow.
//
// test/runtime/run.ts copies this file into a consumer project that installed the packed
// tarballs (and msw, the testing kit's peer), then runs it with that Node. Plain CommonJS, no
// TypeScript and no dev tools: only what a consumer has. It
//   1. require()s every entry that each package's `exports` offers under `require`;
//   2. starts the mock server from its CommonJS entry (port 0, loopback);
//   3. runs the SDK's `standby-licensing embed-root` bin to write both roots as .cjs modules,
//      and requires them;
//   4. checks out a lease from the main service with the licensing client, verifies it again,
//      and sees a tampered copy refused with TOKEN_INVALID;
//   5. with the testing kit on msw/node refusing every main request, checks out from the standby;
//   5b. checks out through an HTTP proxy (the `proxy` option): the SDK's Node fetch, an ES module
//      the CommonJS build loads at run time, with undici;
//   6. writes a signed event and reads it back with a read token the SDK signs itself (the
//      signing code is an `import()` in the sources: the CommonJS build must carry it);
//   7. loads the QA console's page, script and style sheet (files shipped beside the bundle);
//   8. releases everything and prints one summary line (stdout), exit code 0.
// Any failure exits 1 with the error on stderr.
'use strict';

const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const { generateKeyPairSync } = require('node:crypto');
const { readFileSync } = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { promisify } = require('node:util');

const PACKAGES = ['@standby-licensing/sdk', '@standby-licensing/mock-server'];

/** Every subpath of `name` that its `exports` map offers to `require()`. */
function commonJsEntries(name) {
  const manifest = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8'));
  const entries = [];
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'object' && target !== null && 'require' in target) {
      entries.push(subpath === '.' ? name : `${name}${subpath.slice(1)}`);
    }
  }
  return entries;
}

/**
 * Runs a package's bin with this Node (the floor), as `npx <bin>` would. Asynchronously: the
 * mock server it talks to runs in this process.
 */
async function runBin(name, bin, args, env = {}) {
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const script = path.join(path.dirname(manifestPath), manifest.bin[bin]);
  const options = { env: { ...process.env, ...env } };
  return (await promisify(execFile)(process.execPath, [script, ...args], options)).stdout;
}

async function json(response) {
  const text = await response.text();
  assert.ok(response.ok, `HTTP ${response.status} from ${response.url}: ${text}`);
  return JSON.parse(text);
}

async function main() {
  const required = [];
  for (const name of PACKAGES) {
    for (const entry of commonJsEntries(name)) {
      const loaded = require(entry);
      assert.ok(Object.keys(loaded).length > 0, `${entry} exports nothing`);
      required.push(entry);
    }
  }

  const { startServer } = require('@standby-licensing/mock-server');
  const {
    createEventClient,
    createLicensingClient,
    isLicensingError,
  } = require('@standby-licensing/sdk');
  // One RSA key signs written events and read tokens; the mock trusts it for both.
  const eventKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const eventPublicPem = eventKey.publicKey.export({ type: 'spki', format: 'pem' });
  const eventPrivatePem = eventKey.privateKey.export({ type: 'pkcs8', format: 'pem' });
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    state: 'active',
    admin: true,
    eventWriterKeys: [eventPublicPem],
    eventReaderKeys: [eventPublicPem],
    requireSignedEvents: true,
  });
  const { mainUrl, standbyUrl, idpUrl, apiKey } = server.info;
  const summary = [];
  try {
    // The two roots an app embeds, written by the SDK's bin as CommonJS modules: a new standby
    // signing key's root, and the mock main's (trust on first use, development only).
    const roots = path.join(process.cwd(), 'roots');
    // The API key goes in the environment, as docs/embed-root.md advises (out of `ps`, and a key
    // that starts with `-` is not read as an option).
    const embed = (args, env) =>
      runBin(
        '@standby-licensing/sdk',
        'standby-licensing',
        ['embed-root', '--force', ...args],
        env,
      );
    await embed(['--standby-url', standbyUrl, '--new-key', '--out', `${roots}/standby-root.cjs`], {
      STANDBY_LICENSING_API_KEY: apiKey,
    });
    await embed([
      '--jwks-url',
      `${mainUrl}/.well-known/jwks.json`,
      '--out',
      `${roots}/main-root.cjs`,
    ]);
    const { rootCertificate: standbyRoot } = require(`${roots}/standby-root.cjs`);
    const { rootCertificate: mainRoot } = require(`${roots}/main-root.cjs`);
    assert.equal(typeof standbyRoot.keyId, 'string');
    const signIn = async () =>
      (
        await json(
          await fetch(`${idpUrl}/token`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ sub: 'cjs-consumer' }),
          }),
        )
      ).id_token;
    const options = {
      mainUrl,
      standbyUrl,
      auth: { idToken: signIn },
      trust: { rootCertificates: [standbyRoot, mainRoot] },
      failover: { mainAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 },
      hardwareId: 'cjs-runtime-check',
    };

    const client = createLicensingClient(options);
    const { leases, denied } = await client.checkout(['ItemA']);
    assert.equal(denied.length, 0);
    assert.equal(leases.length, 1);
    const [lease] = leases;
    assert.equal(lease.servedBy, 'main');
    assert.equal(lease.claims.ItemA, true);
    const verified = await client.verify(lease.token, { item: 'ItemA', service: 'main' });
    assert.equal(verified.claims.jti, lease.claims.jti);
    const [header, payload, signature] = lease.token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...lease.claims, exp: lease.claims.exp + 86_400 }),
    ).toString('base64url');
    assert.notEqual(forged, payload);
    const refusal = await client.verify(`${header}.${forged}.${signature}`).then(
      () => undefined,
      (error) => error,
    );
    assert.ok(isLicensingError(refusal), `a tampered lease was not refused: ${refusal}`);
    assert.equal(refusal.code, 'TOKEN_INVALID');
    await client.close();
    summary.push(
      `embed-root wrote both roots as .cjs; checkout ItemA from main, verify ok, tampered lease ${refusal.code}`,
    );

    // The testing kit, on msw's CommonJS build: main refuses every request, the standby serves.
    const { setupServer } = require('msw/node');
    const { mainRefused } = require('@standby-licensing/sdk/testing');
    const msw = setupServer(...mainRefused(mainUrl));
    msw.listen({ onUnhandledRequest: 'bypass' });
    try {
      const drilled = createLicensingClient(options);
      const { leases: fromStandby } = await drilled.checkout(['ItemA']);
      assert.equal(fromStandby.length, 1);
      assert.equal(fromStandby[0].servedBy, 'standby');
      await drilled.verify(fromStandby[0].token, { item: 'ItemA', service: 'standby' });
      await drilled.close();
      summary.push('testing kit mainRefused: ItemA from standby, verify ok');
    } finally {
      msw.close();
    }

    // A proxy: the SDK's default fetch on Node loads its proxy support (an ES module beside the
    // CommonJS build, and undici) on first use. A forward proxy that records what it forwards.
    const forwarded = [];
    const proxy = http.createServer((request, response) => {
      forwarded.push(`${request.method} ${new URL(request.url).pathname}`);
      const upstream = http.request(
        request.url,
        { method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode, answer.headers);
          answer.pipe(response);
        },
      );
      request.pipe(upstream);
    });
    await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxied = createLicensingClient({
        ...options,
        proxy: `http://127.0.0.1:${proxy.address().port}`,
      });
      const { leases: viaProxy } = await proxied.checkout(['ItemA']);
      assert.equal(viaProxy[0].servedBy, 'main');
      await proxied.release(viaProxy);
      await proxied.close();
      assert.ok(forwarded.includes('GET /main/authz/.jwt'), `forwarded: ${forwarded}`);
      summary.push(`checkout through an HTTP proxy (${forwarded.length} requests forwarded)`);
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }

    // Events: put signs a JWS and reads sign their own JWTs, both with jose loaded at first use.
    const events = createEventClient({
      eventUrl: server.info.eventUrl,
      signer: { privateKey: eventPrivatePem },
      auth: { privateKey: eventPrivatePem },
    });
    await events.put({ eventType: 'CjsChecked', eventSourceId: 'cjs-runtime', data: { ok: 1 } });
    const written = await events.collect('cjs-runtime', { limit: 10 });
    assert.deepEqual(
      written.map((event) => [event.eventType, event.data]),
      [['CjsChecked', { ok: 1 }]],
    );
    summary.push('signed event put and read back with an SDK-signed read token');

    // The QA console: static files the package ships in dist/console/, found from the CJS build.
    const adminUrl = mainUrl.replace(/\/main$/, '/admin');
    for (const [path, type] of [
      ['console', 'text/html'],
      ['console.js', 'text/javascript'],
      ['console.css', 'text/css'],
    ]) {
      const response = await fetch(`${adminUrl}/${path}`);
      assert.equal(response.status, 200, `GET /admin/${path}: HTTP ${response.status}`);
      assert.ok(response.headers.get('content-type').startsWith(type), `/admin/${path} type`);
      assert.ok((await response.text()).length > 1000, `/admin/${path} is short`);
    }
    summary.push('QA console page, script and style sheet served from dist/console');
  } finally {
    await server.close();
  }
  const mswVersion = require('msw/package.json').version;
  console.log(
    `node ${process.version}: required ${required.length} CommonJS entries (${required.join(', ')}); ${summary.join('; ')} (msw ${mswVersion})`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
