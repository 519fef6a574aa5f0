import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sendRaw } from '../test/helpers/raw-http.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const CLI = 'mock-server/src/cli.ts';

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal as unknown as number))),
  );
  return { child, stdout: () => out, stderr: () => err, exit };
}

interface Info {
  mainUrl: string;
  standbyUrl: string;
  eventUrl: string;
  idpUrl: string;
  apiKey: string;
}

/** Starts the CLI and resolves with its JSON line once printed. */
async function start(args: string[]): Promise<Run & { info: Info }> {
  const proc = run(['--port', '0', ...args]);
  const line = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const text = proc.stdout();
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
    };
    proc.child.stdout!.on('data', onData);
    proc.exit.then((code) => reject(new Error(`exited ${code}: ${proc.stderr()}`)));
  });
  return { ...proc, info: JSON.parse(line) };
}

async function stop(proc: Run): Promise<number | null> {
  proc.child.kill('SIGTERM');
  return proc.exit;
}

async function idToken(info: Info): Promise<string> {
  const res = await fetch(`${info.idpUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub: 'cli-user' }),
  });
  return (await res.json()).id_token;
}

describe('command line', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'standby-mock-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  // Filled by the first test, checked by the restarts that follow.
  let first: Info;
  let kids: string[];

  it('prints one JSON line with absolute URLs, serves, and exits 0 on SIGTERM', async () => {
    const proc = await start(['--data-dir', dataDir, '--state', 'active']);
    const { info } = proc;
    first = info;
    expect(Object.keys(info).sort()).toEqual(
      ['apiKey', 'eventUrl', 'idpUrl', 'mainUrl', 'standbyUrl'].sort(),
    );
    const port = new URL(info.standbyUrl).port;
    expect(Number(port)).toBeGreaterThan(0);
    expect(info.standbyUrl).toBe(`http://127.0.0.1:${port}/standby`);
    expect(info.mainUrl).toBe(`http://127.0.0.1:${port}/main`);
    expect(info.eventUrl).toBe(`http://127.0.0.1:${port}/events`);
    expect(info.idpUrl).toBe(`http://127.0.0.1:${port}/idp`);
    expect(info.apiKey.length).toBeGreaterThanOrEqual(16);

    const auth = { authorization: `IdToken ${await idToken(info)}` };
    const created = await fetch(`${info.standbyUrl}/signing-keys`, {
      method: 'POST',
      headers: { 'service-apikey': info.apiKey },
    });
    expect(created.status).toBe(201);
    const jwks = await (
      await fetch(`${info.standbyUrl}/.well-known/jwks.json`, { headers: auth })
    ).json();
    kids = jwks.keys.map((k: { kid: string }) => k.kid);
    expect(kids).toHaveLength(2);
    const lease = await fetch(`${info.standbyUrl}/authz/.jwt?ItemA`, { headers: auth });
    expect(lease.status).toBe(200);

    expect(await stop(proc)).toBe(0);
    expect(proc.stdout().trim().split('\n')).toHaveLength(1);
  }, 90_000);

  it('keeps the API key, signing keys and standby state across a restart', async () => {
    // Without --state: the stored state (active) wins over the default.
    const proc = await start(['--data-dir', dataDir]);
    try {
      expect(proc.info.apiKey).toBe(first.apiKey);
      const auth = { authorization: `IdToken ${await idToken(proc.info)}` };
      const enabled = await fetch(`${proc.info.standbyUrl}/enabled`, { headers: auth });
      expect(await enabled.json()).toBe(true);
      const again = await (
        await fetch(`${proc.info.standbyUrl}/.well-known/jwks.json`, { headers: auth })
      ).json();
      expect(again.keys.map((k: { kid: string }) => k.kid)).toEqual(kids);
      const pinned = await fetch(`${proc.info.standbyUrl}/authz/.jwt?ItemA`, {
        headers: { ...auth, 'service-signingkeyid': kids[1]! },
      });
      expect(pinned.status).toBe(200);
      const disabled = await fetch(`${proc.info.standbyUrl}/disabled`, {
        method: 'POST',
        headers: { 'service-apikey': first.apiKey },
      });
      expect(disabled.status).toBe(200);
    } finally {
      expect(await stop(proc)).toBe(0);
    }

    // A stored state also wins over --state.
    const third = await start(['--data-dir', dataDir, '--state', 'active']);
    try {
      const auth = { authorization: `IdToken ${await idToken(third.info)}` };
      const enabled = await fetch(`${third.info.standbyUrl}/enabled`, { headers: auth });
      expect(await enabled.json()).toBe(false);
    } finally {
      expect(await stop(third)).toBe(0);
    }
  }, 90_000);

  it('uses the given --api-key and exits 0 on SIGINT', async () => {
    const proc = await start(['--api-key', 'k-123456789', '--items', 'A,B']);
    expect(proc.info.apiKey).toBe('k-123456789');
    proc.child.kill('SIGINT');
    expect(await proc.exit).toBe(0);
  }, 60_000);

  it('refuses to start on a damaged data file, naming it, and exits 1', async () => {
    const path = join(dataDir, 'standby-state.json');
    const saved = await readFile(path, 'utf8');
    await writeFile(path, '{"state":"sideways"}');
    try {
      const proc = run(['--port', '0', '--data-dir', dataDir]);
      expect(await proc.exit).toBe(1);
      expect(proc.stderr()).toContain(`standby-mock-server: ${path}: /state`);
      expect(proc.stdout()).toBe('');
      expect(await readFile(path, 'utf8')).toBe('{"state":"sideways"}');
    } finally {
      await writeFile(path, saved);
    }
  }, 60_000);

  it('takes --public-url, --cors-origin and the limits', async () => {
    const proc = await start([
      '--public-url',
      'https://licensing.example.test',
      '--cors-origin',
      'https://app.example.test',
      '--cors-origin',
      'https://admin.example.test',
      '--max-items',
      '2',
      '--request-timeout-ms',
      '5000',
      '--admin',
      '--allowed-host',
      'mock.ci.internal',
    ]);
    try {
      expect(proc.info.standbyUrl).toBe('https://licensing.example.test/standby');
      expect(proc.info.idpUrl).toBe('https://licensing.example.test/idp');
      // The printed URLs are public; the process itself listens on a loopback port (logged).
      const port = await vi.waitFor(() => {
        const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(proc.stderr());
        if (!match) throw new Error('no listening line yet');
        return match[1];
      });
      const local = `http://127.0.0.1:${port}`;
      const preflight = await fetch(`${local}/standby/authz/.jwt`, {
        method: 'OPTIONS',
        headers: { origin: 'https://admin.example.test', 'access-control-request-method': 'GET' },
      });
      expect(preflight.status).toBe(204);
      const refused = await fetch(`${local}/standby/authz/.jwt`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example.test', 'access-control-request-method': 'GET' },
      });
      expect(refused.status).toBe(403);
      const minted = await fetch(`${local}/idp/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sub: 'u' }),
      });
      const auth = { authorization: `IdToken ${(await minted.json()).id_token}` };
      const three = await fetch(`${local}/main/authz/.jwt?A&B&C`, { headers: auth });
      expect(three.status).toBe(400);
      expect((await fetch(`${local}/main/authz/.jwt?A&B`, { headers: auth })).status).toBe(200);
      // The admin API answers the --allowed-host name and the --public-url host, no other.
      const adminAt = async (host: string) =>
        (
          await sendRaw(
            Number(port),
            `GET /admin/clock HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
          )
        ).status;
      expect(await adminAt('mock.ci.internal:8787')).toBe(200);
      expect(await adminAt('licensing.example.test')).toBe(200);
      expect(await adminAt('evil.example.test')).toBe(403);
    } finally {
      expect(await stop(proc)).toBe(0);
    }
  }, 60_000);

  it('signs leases on --signing-threads worker threads and still exits 0 on SIGTERM', async () => {
    const proc = await start(['--signing-threads', '2', '--state', 'active']);
    const auth = { authorization: `IdToken ${await idToken(proc.info)}` };
    const leases = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        const res = await fetch(`${proc.info.standbyUrl}/authz/.jwt?ItemA&ItemB`, {
          headers: auth,
        });
        return [res.status, (await res.text()).split('&').length];
      }),
    );
    expect(leases).toEqual([
      [200, 2],
      [200, 2],
      [200, 2],
      [200, 2],
    ]);
    expect(await stop(proc)).toBe(0);
  }, 60_000);

  it('logs the QA console URL with --admin, and takes --main-audit-events and --max-licenses', async () => {
    const proc = await start(['--admin', '--main-audit-events', '--max-licenses', '1']);
    try {
      const admin = proc.info.mainUrl.replace(/\/main$/, '/admin');
      await vi.waitFor(() => expect(proc.stderr()).toContain(`QA console: ${admin}/console`));
      expect((await fetch(`${admin}/console`)).status).toBe(200);
      const provision = (sub: string) =>
        fetch(`${admin}/main/licenses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sub, item: 'Pro' }),
        });
      expect((await provision('a')).status).toBe(201);
      expect((await provision('b')).status).toBe(409);
      const minted = await fetch(`${proc.info.idpUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sub: 'reader', claims: { main: true } }),
      });
      const token = (await minted.json()).id_token;
      await vi.waitFor(async () => {
        const feed = await fetch(`${proc.info.eventUrl}/get/main`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const types = (await feed.json()).objects.map((o: { eventType: string }) => o.eventType);
        expect(types).toEqual(['instruction', 'LicenseProvisioned', 'Created', 'instruction']);
      });
    } finally {
      expect(await stop(proc)).toBe(0);
    }
  }, 60_000);

  // Concurrent: each spawns its own short-lived process.
  it.concurrent.each([
    ['an unknown option', ['--bogus']],
    ['a bad port', ['--port', '99999']],
    ['a bad state', ['--state', 'sideways']],
    ['a bad propagation delay', ['--propagation-delay-ms', 'soon']],
    ['a bad signing thread count', ['--signing-threads', 'many']],
    ['a missing key file', ['--idp-public-key', '/nonexistent/key.pem']],
    ['a public URL with credentials', ['--public-url', 'http://user:pw@evil.test']],
    ['a CORS origin with a path', ['--cors-origin', 'https://app.test/x']],
    ['an allowed host with a port', ['--allowed-host', 'mock.test:8787']],
    ['a limit that is not a number', ['--max-items', 'many']],
    ['a limit out of range', ['--request-timeout-ms', '1']],
    ['no licenses at all', ['--max-licenses', '0']],
    [
      'a headers timeout above the request timeout',
      ['--request-timeout-ms', '1000', '--headers-timeout-ms', '2000'],
    ],
  ])('exits 2 with a message on stderr for %s', async (_name, args) => {
    const proc = run(args);
    expect(await proc.exit).toBe(2);
    expect(proc.stderr()).toMatch(/^standby-mock-server: .+/);
    expect(proc.stdout()).toBe('');
  });
});
