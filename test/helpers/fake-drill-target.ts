// The testing kit's fakes as a DrillTarget (test/helpers/outage-drill.ts): drills are msw
// handlers put in front of the fakes, and resetting the handlers ends them. Runs with msw's
// `setupServer` in Node and `setupWorker` in a page alike.
import {
  type FakeLicensing,
  type ScenarioName,
  scenarioHandlers,
} from '@standby-licensing/sdk/testing';
import type { RequestHandler } from 'msw';
import type { DrillTarget } from './outage-drill.js';

/** What the target needs of msw's server or worker. */
export interface MswNetwork {
  use(...handlers: RequestHandler[]): void;
  resetHandlers(...handlers: RequestHandler[]): void;
}

/**
 * A drill target on `fake`, started with `network` (whose initial handlers are `fake.handlers`)
 * and the fakes' `urls`.
 */
export function fakeDrillTarget(
  fake: FakeLicensing,
  network: MswNetwork,
  urls: DrillTarget['urls'],
  standbySlowMs: number,
): DrillTarget {
  return {
    urls,
    roots: fake.roots,
    standbySlowMs,
    async apply(names: readonly ScenarioName[]) {
      network.use(
        ...names.flatMap((name) => scenarioHandlers(name, { ...urls, delayMs: standbySlowMs })),
      );
    },
    async heal() {
      network.resetHandlers();
      fake.setStandby('active');
    },
    async setStandby(state) {
      fake.setStandby(state);
    },
    async grant(sub, item) {
      fake.grant(sub, item);
    },
    async revoke(sub, item) {
      fake.revoke(sub, item);
    },
  };
}
