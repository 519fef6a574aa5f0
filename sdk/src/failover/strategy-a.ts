import { FailedAttempt } from '../transport/failed-attempt.js';
import type { LicensingService } from '../types.js';
import { combineFailures } from './combine-failures.js';
import { runOnMain, tryMainAttempts } from './main-attempts.js';
import type { AttemptOperation, FailoverStrategy, StrategyDeps } from './strategy.js';

/**
 * Strategy A: every call tries the main service `mainAttempts` times, then the standby once.
 * `activeService` reports who served the last call; `failover`/`failback` fire when that changes.
 */
export function createStrategyA(deps: StrategyDeps): FailoverStrategy {
  let active: LicensingService = 'main';
  return {
    get activeService() {
      return active;
    },
    async run<T>(operation: AttemptOperation<T>, signal?: AbortSignal): Promise<T> {
      const main = await tryMainAttempts(operation, deps, signal);
      if (main.ok) {
        if (active === 'standby') {
          active = 'main';
          deps.events.emit('failback', { from: 'standby', to: 'main', reason: 'main-answered' });
        }
        return main.value;
      }
      signal?.throwIfAborted();
      let value: T;
      try {
        value = await operation('standby', signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof FailedAttempt) {
          deps.events.emit('attemptFailed', {
            service: 'standby',
            attempt: 1,
            reason: error.verdict.reason,
            error: error.verdict.error,
          });
        }
        throw combineFailures(main.errors, error);
      }
      if (active === 'main') {
        active = 'standby';
        deps.events.emit('failover', {
          from: 'main',
          to: 'standby',
          strategy: 'A',
          cause: main.errors.at(-1),
        });
      }
      return value;
    },
    runOnMain: (operation, signal) => runOnMain(operation, deps, signal),
    close() {},
  };
}
