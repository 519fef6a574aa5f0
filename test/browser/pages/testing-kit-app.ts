// Page script of test/browser/testing-kit-worker.test.ts, bundled from the built SDK: a web app's
// QA drill with the testing kit (`@standby-licensing/sdk/testing`) on msw's browser service
// worker. The worker breaks the main service (which is really healthy) and passes the standby's
// requests through to the real mock server; the page reports which service served the lease.
import {
  createLicensingClient,
  type FailureReason,
  type LicensingService,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import {
  createRequestRecorder,
  type Failure,
  mainDown,
  type RecordedRequest,
} from '@standby-licensing/sdk/testing';
import { setupWorker } from 'msw/browser';
import { type Outcome, outcome } from './page-report.js';

/** One drill: `mainDown` with `failure`, then checkouts of `items`, one call each. */
export interface DrillConfig {
  mainUrl: string;
  standbyUrl: string;
  failure: Failure;
  strategy: 'A' | 'B';
  roots: TrustedRoot[];
  idToken: string;
  /** One checkout per entry, in order. */
  calls: string[][];
}

/** What a checkout call of a drill produced, and the requests msw saw during it. */
export interface DrillCall {
  checkout: Outcome<Array<{ item: string; servedBy: LicensingService; iss: unknown }>>;
  requests: RecordedRequest[];
}

/** What a drill produced. */
export interface DrillReport {
  calls: DrillCall[];
  /** The SDK's `attemptFailed` reasons and `failover` events, in order. */
  events: string[];
}

/** The page's surface, on `window.kitApp`. */
export interface TestingKitPage {
  /** Registers msw's worker; resolves whether it now controls the page. */
  startWorker(): Promise<boolean>;
  drill(config: DrillConfig): Promise<DrillReport>;
}

declare global {
  interface Window {
    kitApp: TestingKitPage;
  }
}

const worker = setupWorker();

window.kitApp = {
  async startWorker() {
    await worker.start({
      quiet: true,
      onUnhandledRequest: 'error',
      serviceWorker: { url: '/mockServiceWorker.js' },
    });
    return navigator.serviceWorker.controller !== null;
  },

  async drill(config) {
    const { mainUrl, standbyUrl } = config;
    worker.resetHandlers(...mainDown({ mainUrl, standbyUrl, failure: config.failure }));
    const recorder = createRequestRecorder({ main: mainUrl, standby: standbyUrl });
    const detach = recorder.attach(worker);
    const events: string[] = [];
    const client = createLicensingClient({
      mainUrl,
      standbyUrl,
      auth: { idToken: () => config.idToken },
      trust: { rootCertificates: config.roots },
      failover: { strategy: config.strategy, mainAttempts: 2, backoffBaseMs: 1, backoffMaxMs: 1 },
      on: {
        attemptFailed: (e) =>
          events.push(`attemptFailed:${e.service}:${e.reason satisfies FailureReason}`),
        failover: (e) => events.push(`failover:${e.strategy}`),
      },
    });
    const calls: DrillCall[] = [];
    try {
      for (const items of config.calls) {
        recorder.reset();
        const checkout = await outcome(async () =>
          (await client.checkout(items)).leases.map((lease) => ({
            item: lease.item,
            servedBy: lease.servedBy,
            iss: lease.claims.iss,
          })),
        );
        calls.push({ checkout, requests: [...recorder.requests] });
      }
      return { calls, events };
    } finally {
      detach();
      await client.close();
      worker.resetHandlers();
    }
  },
};
