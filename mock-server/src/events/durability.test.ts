import { type ChildProcess, spawn } from 'node:child_process';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_LOG_FILE } from '../store/event-log.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Started {
  child: ChildProcess;
  eventUrl: string;
  idpUrl: string;
}

/**
 * Starts the CLI on a free port and resolves with the URLs of its one JSON stdout line. Node
 * runs it with tsx as a loader, in one process: `npx tsx` would fork a child that a SIGKILL of
 * the wrapper leaves running.
 */
function startCli(dataDir: string): Promise<Started> {
  const args = ['--import', 'tsx', 'mock-server/src/cli.ts', '--port', '0', '--data-dir', dataDir];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      const info = JSON.parse(line) as { eventUrl: string; idpUrl: string };
      resolve({ child, eventUrl: info.eventUrl, idpUrl: info.idpUrl });
    });
    child.once('exit', (code) => reject(new Error(`CLI exited with ${code}: ${stderr}`)));
  });
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function readFeed(server: Started, feed: string) {
  const minted = await fetch(`${server.idpUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub: 'reader', claims: { '*': true } }),
  });
  const token = ((await minted.json()) as { id_token: string }).id_token;
  const res = await fetch(`${server.eventUrl}/get/${feed}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { count: number; objects: Array<Record<string, unknown>> };
}

async function put(server: Started, body: unknown): Promise<number> {
  const res = await fetch(`${server.eventUrl}/put`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.status;
}

describe('durability of the CLI with --data-dir', () => {
  let dataDir: string;
  const running: ChildProcess[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'events-durable-'));
  });
  afterAll(async () => {
    await Promise.all(running.map(killHard));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps an event answered with 201 across kill -9 and a restart, and a torn last line', async () => {
    const first = await startCli(dataDir);
    running.push(first.child);
    expect(await put(first, { eventType: 'Durable', eventSourceId: 'crash' })).toBe(201);
    expect(
      await put(
        first,
        [1, 2].map((n) => ({ eventType: 'Batch', eventSourceId: 'crash', n })),
      ),
    ).toBe(201);
    await killHard(first.child);
    // The killed process was the server itself: its port no longer answers.
    await expect(fetch(`${first.eventUrl}/get/crash`)).rejects.toThrow();

    // A write cut short by the crash: never acknowledged, so it must be dropped, not fatal.
    await appendFile(join(dataDir, EVENT_LOG_FILE), '{"ts":["9"],"events":[{"eventTy');

    const second = await startCli(dataDir);
    running.push(second.child);
    const feed = await readFeed(second, 'crash');
    expect(feed.objects.slice(1, -1).map((e) => e.eventType)).toEqual([
      'Durable',
      'Batch',
      'Batch',
    ]);
    expect(await put(second, { eventType: 'After', eventSourceId: 'crash' })).toBe(201);
    const after = await readFeed(second, 'crash');
    expect(after.count).toBe(4);
    const stamps = after.objects.slice(1, -1).map((e) => BigInt(e.eventReceived_str as string));
    expect(stamps[3]! > stamps[2]!).toBe(true);
    await killHard(second.child);
  }, 60_000);
});
