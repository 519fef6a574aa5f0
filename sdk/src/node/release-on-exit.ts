// Node-only: imported solely from sdk/src/node.ts (the `@standby-licensing/sdk/node` entry).
import type { LicensingClient } from '../client/licensing-client.js';
import {
  type ReleaseOnExitOptions,
  resolveReleaseOnExitOptions,
} from '../options/app-integration.js';

/** The signals after which the leases are released. */
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

type ExitSignal = (typeof SIGNALS)[number];

/** The part of Node's `process` that {@link watchExit} uses (a fake in tests). */
export interface ExitProcess {
  readonly pid: number;
  on(event: ExitSignal | 'beforeExit', listener: () => void): unknown;
  off(event: ExitSignal | 'beforeExit', listener: () => void): unknown;
  listenerCount(event: ExitSignal): number;
  kill(pid: number, signal: ExitSignal): unknown;
}

/**
 * {@link releaseOnExit} on a given process. After a signal, once the release is done (or
 * `timeoutMs` passed) its handlers are removed and, when no other listener of that signal is
 * left, the signal is raised again, so the process ends as it would have without them (killed
 * by that signal). A second signal during the release does that at once. On `beforeExit` the
 * release runs and the process then exits with its `exitCode`, as it was about to.
 */
export function watchExit(
  client: LicensingClient,
  options: Required<ReleaseOnExitOptions>,
  proc: ExitProcess,
): () => void {
  let state: 'watching' | 'releasing' | 'done' = 'watching';
  const remove = () => {
    for (const signal of SIGNALS) proc.off(signal, handlers[signal]);
    proc.off('beforeExit', onBeforeExit);
  };
  const reraise = (signal: ExitSignal) => {
    remove();
    if (proc.listenerCount(signal) === 0) proc.kill(proc.pid, signal);
  };
  const release = () => client.close({ release: true, timeoutMs: options.timeoutMs });
  const onSignal = (signal: ExitSignal) => {
    if (state === 'done') return;
    if (state === 'releasing') {
      state = 'done';
      reraise(signal);
      return;
    }
    state = 'releasing';
    void release()
      .catch(() => undefined)
      .then(() => {
        if (state === 'done') return;
        state = 'done';
        reraise(signal);
      });
  };
  const handlers = {
    SIGINT: () => onSignal('SIGINT'),
    SIGTERM: () => onSignal('SIGTERM'),
  } satisfies Record<ExitSignal, () => void>;
  function onBeforeExit() {
    if (state !== 'watching') return;
    state = 'releasing';
    // The release keeps the event loop busy; when it is done, nothing is left and Node exits
    // with the exit code it was about to use (its `beforeExit` fires again, without us).
    void release()
      .catch(() => undefined)
      .then(() => {
        state = 'done';
        remove();
      });
  }
  for (const signal of SIGNALS) proc.on(signal, handlers[signal]);
  proc.on('beforeExit', onBeforeExit);
  return () => {
    state = 'done';
    remove();
  };
}

/**
 * Releases the client's leases when the process ends: on SIGINT (Ctrl-C), SIGTERM (a service
 * manager, `kill`) and `beforeExit` (nothing left to do), it calls
 * `client.close({ release: true, timeoutMs })`, then lets the process end as it would have: a
 * signal ends it by that signal (unless the app listens to the signal itself, which then decides),
 * `beforeExit` with the exit code it was about to use. A second Ctrl-C during the release ends it
 * at once. `process.exit()` skips all of this: `await client.close({ release: true })` before
 * calling it.
 *
 * @param client The licensing client whose leases to release.
 * @param options `timeoutMs`: the longest the release may hold up the exit, in ms. Default 2 000.
 * @returns A function that removes the handlers.
 * @example
 * import { releaseOnExit } from '@standby-licensing/sdk/node';
 * const client = createLicensingClient(options);
 * const stop = releaseOnExit(client, { timeoutMs: 2_000 });
 */
export function releaseOnExit(
  client: LicensingClient,
  options: ReleaseOnExitOptions = {},
): () => void {
  return watchExit(client, resolveReleaseOnExitOptions(options), process);
}
