// Main's events survive kill -9: a real mock server in a child process with --data-dir is killed
// with SIGKILL right after admin calls, restarted on the same data dir, and the event service's
// `main` feed and the license's own feed must then hold exactly one event per change, in order.
// Three crash points: with deliveries held (the events are certainly still in the outbox), with
// nothing held (wherever the kill lands), and between the event write and the outbox update (the
// outbox file from before delivery put back after the events were written).
import type { ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnNodeScript, stopChild } from '../bench/child-server.js';

interface Server {
  child: ChildProcess;
  origin: string;
  /** `fetch` against `<origin><path>`, JSON body when given. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
}

async function start(dataDir: string): Promise<Server> {
  const { child, firstLine } = await spawnNodeScript(
    'mock-server/src/cli.ts',
    ['--port', '0', '--data-dir', dataDir, '--admin', '--items', 'Basic', '--api-key', 'kill-9'],
    { startTimeoutMs: 60_000 },
  );
  const origin = new URL((JSON.parse(firstLine) as { mainUrl: string }).mainUrl).origin;
  return {
    child,
    origin,
    call: (method, path, body) =>
      fetch(`${origin}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
      }),
  };
}

/** SIGKILL: no shutdown hook runs, nothing is flushed. */
async function kill9(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGKILL');
  await exited;
}

async function expectStatus(response: Promise<Response>, status: number): Promise<Response> {
  const res = await response;
  expect(res.status, await res.clone().text()).toBe(status);
  return res;
}

/** The four changes of the issue: provision, block, unblock, revoke (each one admin call). */
const CHANGES = [
  'LicenseProvisioned',
  'ActivationCodeBlocked',
  'ActivationCodeUnblocked',
  'LicenseRevoked',
];

async function change(server: Server, step: number, code: string, licenseId?: string) {
  switch (step) {
    case 0: {
      const res = await expectStatus(
        server.call('POST', '/admin/main/licenses', {
          sub: 'kim',
          item: 'Pro',
          activationCode: code,
        }),
        201,
      );
      return ((await res.json()) as { licenseId: string }).licenseId;
    }
    case 1:
      await expectStatus(server.call('POST', `/admin/main/activation-codes/${code}/block`), 204);
      return licenseId;
    case 2:
      await expectStatus(server.call('POST', `/admin/main/activation-codes/${code}/unblock`), 204);
      return licenseId;
    default:
      await expectStatus(server.call('DELETE', `/admin/main/licenses/${licenseId}`), 204);
      return licenseId;
  }
}

/** Waits (polling, at most 30 s) until main's outbox is empty. */
async function drained(server: Server): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const view = (await (await server.call('GET', '/admin/main/outbox')).json()) as {
      pending: number;
    };
    if (view.pending === 0) return;
    await sleep(100);
  }
  throw new Error('the outbox did not drain in 30 s');
}

/** Every event of a feed, read through the event service with a read token from its issuer. */
async function feed(server: Server, name: string): Promise<Array<Record<string, unknown>>> {
  const minted = await server.call('POST', '/idp/token', { sub: 'reader', claims: { '*': true } });
  const token = ((await minted.json()) as { id_token: string }).id_token;
  const path = name.split('/').map(encodeURIComponent).join('/');
  const res = await fetch(`${server.origin}/events/get/${path}?maxEventCount=10000`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { objects: Array<Record<string, unknown>> };
  return body.objects.filter((item) => item.eventType !== 'instruction');
}

/** Exactly one event per change, in order, in `main` and in the license's and code's feeds. */
async function expectExactlyOnce(server: Server, licenseId: string, code: string): Promise<void> {
  await drained(server);
  const main = await feed(server, 'main');
  expect(main.map((e) => e.eventType)).toEqual(CHANGES);
  expect(new Set(main.map((e) => e.eventId)).size).toBe(4);
  const own = await feed(server, `license/${licenseId}`);
  expect(own.map((e) => e.eventId)).toEqual([main[0]!.eventId, main[3]!.eventId]);
  const codeFeed = await feed(server, `activationCode/${code}`);
  expect(codeFeed.map((e) => e.eventId)).toEqual([main[1]!.eventId, main[2]!.eventId]);
  const stamps = main.map((e) => BigInt(e.eventReceived_str as string));
  for (let i = 1; i < stamps.length; i++) expect(stamps[i]! > stamps[i - 1]!).toBe(true);
}

describe('main events across kill -9 (child process, --data-dir)', () => {
  const dirs: string[] = [];
  const running = new Set<Server>();
  const launch = async (dataDir: string) => {
    const server = await start(dataDir);
    running.add(server);
    server.child.once('exit', () => running.delete(server));
    return server;
  };
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'main-kill-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    await Promise.all([...running].map((server) => stopChild(server.child)));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('delivers held events after a kill -9, and once only after a crash between event write and outbox update', async () => {
    const dataDir = await tempDir();
    const code = 'HELD-1';
    let server = await launch(dataDir);
    // Held deliveries: the events of all four changes are certainly only in the outbox.
    await expectStatus(server.call('PUT', '/admin/main/outbox', { paused: true }), 200);
    let licenseId: string | undefined;
    for (let step = 0; step < 4; step++) licenseId = await change(server, step, code, licenseId);
    const outbox = (await (await server.call('GET', '/admin/main/outbox')).json()) as {
      pending: number;
    };
    expect(outbox.pending).toBe(4);
    await kill9(server);
    // The data dir as the kill left it: changes stored, events not written.
    const bookFile = join(dataDir, 'main-licenses.json');
    const undelivered = join(dataDir, 'undelivered.json.bak');
    await copyFile(bookFile, undelivered);

    server = await launch(dataDir);
    await expectExactlyOnce(server, licenseId!, code);
    await kill9(server);

    // The crash between the two steps of a delivery: events in events.log, and the outbox as it
    // was before (its update lost). The restart must find the events and write none again.
    await copyFile(undelivered, bookFile);
    server = await launch(dataDir);
    await expectExactlyOnce(server, licenseId!, code);
    await stopChild(server.child);
  }, 180_000);

  it('kill -9 right after each admin call, nothing held: exactly one event per change', async () => {
    const dataDir = await tempDir();
    const code = 'KILL-1';
    let licenseId: string | undefined;
    for (let step = 0; step < 4; step++) {
      const server = await launch(dataDir);
      licenseId = await change(server, step, code, licenseId);
      await kill9(server);
    }
    const server = await launch(dataDir);
    await expectExactlyOnce(server, licenseId!, code);
    await stopChild(server.child);
  }, 180_000);
});
