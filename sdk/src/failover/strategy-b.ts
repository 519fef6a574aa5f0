import type { FailbackReason } from '../client-hooks.js';
import { LicensingError } from '../errors.js';
import { abortable } from '../internal/abortable.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import type { FailureReason, LicensingService } from '../types.js';
import { combineFailures } from './combine-failures.js';
import { runOnMain, tryMainAttempts } from './main-attempts.js';
import { isMainReachable } from './main-probe.js';
import { isStandbyEnabled } from './standby-status.js';
import type { AttemptOperation, FailoverStrategy, StrategyDeps } from './strategy.js';

/**
 * Strategy B (sticky standby). After the main service fails `mainAttempts` times, one shared
 * `GET /enabled` on the standby decides: if enabled, every call goes to the standby with no main
 * attempts until the standby fails (a 403 / dormant answer, an outage, or `/enabled` reporting
 * false); then calls go to main again. While on the standby, main is probed with a request
 * that moves no lease, and the client fails back when it answers. The first probe waits
 * `probeIntervalMs`, each one after a failed probe twice as long, up to `probeMaxIntervalMs`, each
 * × (1 + random × `probeJitterRatio`): at most one main request per interval, and a fleet that
 * failed over together neither probes nor fails back together, the longer the outage the
 * sparser (docs/decisions/0018-herd-controls.md).
 */
export function createStrategyB(deps: StrategyDeps): FailoverStrategy {
  const { probeIntervalMs, probeMaxIntervalMs, probeJitterRatio } = deps.failover;
  /** Probes that found main still down since the last failover. */
  let failedProbes = 0;
  let active: LicensingService = 'main';
  let enabledCheck: Promise<boolean> | undefined;
  let probeTimer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  // Aborts background work (shared /enabled check, probes) on close().
  const lifetime = new AbortController();

  const checkEnabled = (): Promise<boolean> => {
    // One check in flight, shared by every call that needs it.
    enabledCheck ??= isStandbyEnabled(deps.transport, lifetime.signal).finally(() => {
      enabledCheck = undefined;
    });
    return enabledCheck;
  };

  const stopProbe = () => {
    if (probeTimer !== undefined) clearTimeout(probeTimer);
    probeTimer = undefined;
  };

  const failBack = (reason: FailbackReason) => {
    if (active !== 'standby') return;
    active = 'main';
    stopProbe();
    deps.events.emit('failback', { from: 'standby', to: 'main', reason });
  };

  const probe = async () => {
    probeTimer = undefined;
    if (closed || active !== 'standby') return;
    const mainUp = await isMainReachable(deps.transport, lifetime.signal).catch(() => false);
    if (closed || active !== 'standby') return;
    if (mainUp) {
      failBack('main-recovered');
      return;
    }
    const enabled = await checkEnabled().catch(() => true);
    if (closed || active !== 'standby') return;
    if (!enabled) {
      failBack('standby-disabled');
      return;
    }
    failedProbes += 1;
    scheduleProbe();
  };

  const scheduleProbe = () => {
    if (closed || probeTimer !== undefined) return;
    // Jittered, never shorter than the interval: clients that failed over together spread their
    // probes (and so their failback) instead of hitting a recovering main together.
    const interval = Math.min(probeMaxIntervalMs, probeIntervalMs * 2 ** failedProbes);
    const delay = interval * (1 + deps.random() * probeJitterRatio);
    probeTimer = setTimeout(() => void probe(), delay);
    // A background probe must not keep a Node process alive.
    (probeTimer as { unref?: () => void }).unref?.();
  };

  const switchToStandby = (reason: FailureReason, cause: unknown) => {
    if (active === 'standby') return;
    active = 'standby';
    failedProbes = 0;
    deps.events.emit('failover', { from: 'main', to: 'standby', strategy: 'B', reason, cause });
    scheduleProbe();
  };

  const tryStandby = async <T>(
    operation: AttemptOperation<T>,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> => {
    try {
      return { ok: true, value: await operation('standby', signal) };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!(error instanceof FailedAttempt)) throw error;
      deps.events.emit('attemptFailed', {
        service: 'standby',
        attempt: 1,
        reason: error.verdict.reason,
        error: error.verdict.error,
      });
      failBack(error.verdict.reason === 'standby-dormant' ? 'standby-forbidden' : 'standby-failed');
      return { ok: false, error };
    }
  };

  return {
    get activeService() {
      return active;
    },
    async run<T>(operation: AttemptOperation<T>, signal?: AbortSignal): Promise<T> {
      if (active === 'standby') {
        const sticky = await tryStandby(operation, signal);
        if (sticky.ok) return sticky.value;
        // The standby failed: back to main for this very call.
      }
      const main = await tryMainAttempts(operation, deps, signal);
      if (main.ok) {
        // Main answered while another call had switched us over: main is back.
        failBack('main-answered');
        return main.value;
      }
      signal?.throwIfAborted();
      if (active !== 'standby') {
        let enabled: boolean;
        try {
          enabled = await abortable(checkEnabled(), signal);
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          throw combineFailures(main.errors, error);
        }
        if (!enabled) {
          throw new LicensingError(
            'STANDBY_DORMANT',
            'The main licensing service failed and the standby reports it is not enabled. Check the main service (mainUrl), or ask its operator to enable the standby.',
            { cause: new AggregateError(main.errors, 'main attempts') },
          );
        }
        switchToStandby(main.reason, main.errors.at(-1));
      }
      const standby = await tryStandby(operation, signal);
      if (standby.ok) return standby.value;
      throw combineFailures(main.errors, standby.error);
    },
    runOnMain: (operation, signal) => runOnMain(operation, deps, signal),
    close() {
      closed = true;
      stopProbe();
      lifetime.abort();
    },
  };
}
