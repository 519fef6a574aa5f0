// releaseOnExit on a fake process: what it releases, when the signal is raised again, that an
// app's own signal listener keeps the say, that `beforeExit` leaves the exit code alone, and that
// the remover removes everything. The real process (SIGTERM from outside, the mock's request log
// showing the release) is examples/quit-releases-leases.test.ts.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { LicensingClient } from '../client/licensing-client.js';
import { InvalidOptionError } from '../errors.js';
import { releaseOnExit } from '../node.js';
import { type ExitProcess, watchExit } from './release-on-exit.js';

function fakeProcess() {
  const emitter = new EventEmitter();
  const kills: string[] = [];
  const proc: ExitProcess & { emit(event: string): boolean } = {
    pid: 4242,
    on: (event, listener) => emitter.on(event, listener),
    off: (event, listener) => emitter.off(event, listener),
    listenerCount: (event) => emitter.listenerCount(event),
    kill: (pid, signal) => {
      kills.push(`${pid} ${signal}`);
      return true;
    },
    emit: (event) => emitter.emit(event),
  };
  return { proc, kills, emitter };
}

/** A client whose `close` waits until `finish()` is called. */
function fakeClient(outcome: 'resolve' | 'reject' = 'resolve') {
  let finish!: () => void;
  const closes: unknown[] = [];
  const client = {
    close: vi.fn((options: unknown) => {
      closes.push(options);
      return new Promise<void>((resolve, reject) => {
        finish = () => (outcome === 'resolve' ? resolve() : reject(new Error('boom')));
      });
    }),
  } as unknown as LicensingClient;
  return { client, closes, finish: () => finish() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('releaseOnExit', () => {
  it('SIGTERM: releases, then raises SIGTERM again with its handlers gone', async () => {
    const { proc, kills, emitter } = fakeProcess();
    const { client, closes, finish } = fakeClient();
    watchExit(client, { timeoutMs: 1_500 }, proc);
    expect(emitter.listenerCount('SIGTERM')).toBe(1);
    proc.emit('SIGTERM');
    expect(closes).toEqual([{ release: true, timeoutMs: 1_500 }]);
    await tick();
    expect(kills).toEqual([]);
    finish();
    await tick();
    expect(kills).toEqual(['4242 SIGTERM']);
    for (const event of ['SIGINT', 'SIGTERM', 'beforeExit']) {
      expect(emitter.listenerCount(event)).toBe(0);
    }
  });

  it('a release that fails still lets the process end', async () => {
    const { proc, kills } = fakeProcess();
    const { client, finish } = fakeClient('reject');
    watchExit(client, { timeoutMs: 10 }, proc);
    proc.emit('SIGINT');
    finish();
    await tick();
    expect(kills).toEqual(['4242 SIGINT']);
  });

  it('a second Ctrl-C during the release ends the process at once', async () => {
    const { proc, kills } = fakeProcess();
    const { client, closes, finish } = fakeClient();
    watchExit(client, { timeoutMs: 2_000 }, proc);
    proc.emit('SIGINT');
    proc.emit('SIGINT');
    expect(kills).toEqual(['4242 SIGINT']);
    expect(closes).toHaveLength(1);
    finish();
    await tick();
    expect(kills).toEqual(['4242 SIGINT']);
  });

  it("an app's own SIGTERM listener decides: no signal is raised again", async () => {
    const { proc, kills, emitter } = fakeProcess();
    const own = vi.fn();
    emitter.on('SIGTERM', own);
    const { client, finish } = fakeClient();
    watchExit(client, { timeoutMs: 2_000 }, proc);
    proc.emit('SIGTERM');
    finish();
    await tick();
    expect(own).toHaveBeenCalledTimes(1);
    expect(kills).toEqual([]);
    expect(emitter.listenerCount('SIGTERM')).toBe(1);
  });

  it('beforeExit: releases once, then steps aside so the process exits with its exit code', async () => {
    const { proc, kills, emitter } = fakeProcess();
    const { client, closes, finish } = fakeClient();
    watchExit(client, { timeoutMs: 2_000 }, proc);
    proc.emit('beforeExit');
    proc.emit('beforeExit');
    expect(closes).toHaveLength(1);
    finish();
    await tick();
    expect(emitter.listenerCount('beforeExit')).toBe(0);
    expect(kills).toEqual([]);
  });

  it('the returned function removes every handler', async () => {
    const { proc, emitter } = fakeProcess();
    const { client, closes } = fakeClient();
    const stop = watchExit(client, { timeoutMs: 2_000 }, proc);
    stop();
    for (const event of ['SIGINT', 'SIGTERM', 'beforeExit']) {
      expect(emitter.listenerCount(event)).toBe(0);
    }
    expect(closes).toEqual([]);
  });

  it('on the real process: default timeout 2000 ms, handlers added and removed, bad options refused', () => {
    const before = ['SIGINT', 'SIGTERM', 'beforeExit'].map((e) => process.listenerCount(e));
    const { client } = fakeClient();
    const stop = releaseOnExit(client);
    expect(['SIGINT', 'SIGTERM', 'beforeExit'].map((e) => process.listenerCount(e))).toEqual(
      before.map((n) => n + 1),
    );
    stop();
    expect(['SIGINT', 'SIGTERM', 'beforeExit'].map((e) => process.listenerCount(e))).toEqual(
      before,
    );
    expect(() => releaseOnExit(client, { timeoutMs: -5 })).toThrow(InvalidOptionError);
    expect(() => releaseOnExit(client, { timeout: 5 } as never)).toThrow(InvalidOptionError);
  });
});
