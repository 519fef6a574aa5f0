// One simulated app of the fleet: a real SDK licensing client that checks out a lease, then makes
// a licensing call (a renewal through the client) at a fixed interval, and may restart.
import {
  createLicensingClient,
  type FailoverOptions,
  isLicensingError,
  type Lease,
  type LicensingClient,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import { createCountingFetch } from './counting-fetch.js';
import { FLAG, type FleetRecorder, type Holder } from './fleet-records.js';

/** Call failures that mean "nothing could serve it now": the app keeps the lease it holds. */
const OUTAGE_CODES: ReadonlySet<string> = new Set(['SERVICE_UNAVAILABLE', 'STANDBY_DORMANT']);

/** The item every app licenses. */
export const DRILL_ITEM = 'DrillSeat';

/** What every app of a worker shares. */
export interface AppEnvironment {
  mainUrl: string;
  standbyUrl: string;
  /** The mock's ID-token issuer (`/idp`): each app signs in there (not counted as licensing). */
  idpUrl: string;
  roots: TrustedRoot[];
  /** Failover options as the drill passes them (only what the run set, plus the strategy). */
  failover: FailoverOptions;
  recorder: FleetRecorder;
  /** Ms from the run's start. */
  now: () => number;
  /** The worker's undici Agent. */
  dispatcher: unknown;
}

/** One app (see {@link createSimulatedApp}). */
export interface SimulatedApp {
  readonly index: number;
  /** Who served the lease it holds now. */
  readonly holder: Holder;
  /** True while a call is in flight. */
  readonly busy: boolean;
  /** Ticks that found the previous call still running (skipped). */
  readonly skippedCalls: number;
  /** Creates its client and checks its lease out (the app starts). */
  start(): Promise<void>;
  /** One licensing call: a renewal of its lease, or a checkout while it holds none. */
  call(): Promise<void>;
  /** The app exits (its lease goes with it) and starts again with a new client. */
  restart(): Promise<void>;
  /** Closes its client. */
  stop(): Promise<void>;
}

function codeOf(error: unknown): string {
  if (isLicensingError(error)) return error.code;
  return error instanceof Error ? error.name : 'unknown';
}

/**
 * Creates app `index`: its own SDK client (own ID token, own JWKS cache and failover state, as a
 * real installed app has) whose `fetch` counts every request into `env.recorder`. The app records
 * each call, each change of the lease it holds, the client's failover, failback and circuit
 * events, and a lapse when a call refuses the lease it holds while that lease is still valid.
 *
 * @param random The app's random source, also the SDK's (backoff and probe jitter).
 */
export function createSimulatedApp(
  env: AppEnvironment,
  index: number,
  random: () => number,
): SimulatedApp {
  const { recorder, now } = env;
  let client: LicensingClient | undefined;
  let lease: Lease | undefined;
  let holder: Holder = 'none';
  let busy = false;
  let breakerOpen = false;
  let skippedCalls = 0;
  let callMainRequests = 0;
  let stopped = false;

  const setLease = (next: Lease | undefined) => {
    lease = next;
    const nextHolder: Holder = next ? next.servedBy : 'none';
    if (nextHolder !== holder) recorder.lease(now(), index, nextHolder);
    holder = nextHolder;
  };

  const flags = () =>
    (client?.activeService === 'standby' ? FLAG.onStandby : 0) |
    (breakerOpen ? FLAG.breakerOpen : 0) |
    (busy ? FLAG.inCall : 0);

  const signIn = async (): Promise<string> => {
    const response = await fetch(`${env.idpUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: `drill-user-${index}`, expiresInSeconds: 6 * 3600 }),
      dispatcher: env.dispatcher,
    } as RequestInit);
    if (!response.ok) throw new Error(`idp/token: HTTP ${response.status}`);
    return ((await response.json()) as { id_token: string }).id_token;
  };

  const createClient = (): LicensingClient => {
    breakerOpen = false;
    return createLicensingClient({
      mainUrl: env.mainUrl,
      standbyUrl: env.standbyUrl,
      auth: { idToken: signIn },
      trust: { rootCertificates: env.roots },
      failover: env.failover,
      hardwareId: `drill-hw-${index}`,
      version: 'drill',
      random,
      fetch: createCountingFetch({
        mainUrl: env.mainUrl,
        standbyUrl: env.standbyUrl,
        app: index,
        recorder,
        now,
        flags,
        onRequest: (service, { probe }) => {
          if (service === 'main' && !probe) callMainRequests++;
        },
        dispatcher: env.dispatcher,
      }),
      on: {
        failover: () => recorder.event(now(), index, 'failover'),
        failback: (e) => recorder.event(now(), index, 'failback', e.reason),
        circuitOpen: () => {
          breakerOpen = true;
          recorder.event(now(), index, 'circuitOpen');
        },
        circuitClose: () => {
          breakerOpen = false;
          recorder.event(now(), index, 'circuitClose');
        },
      },
    });
  };

  const call = async () => {
    if (stopped || !client) return;
    if (busy) {
      skippedCalls++;
      return;
    }
    const current = client;
    const held = lease;
    const state = flags();
    busy = true;
    callMainRequests = 0;
    const t = now();
    try {
      let next: Lease | undefined;
      if (held) next = await current.renew(held);
      else {
        const result = await current.checkout([DRILL_ITEM]);
        next = result.leases[0];
        if (!next) throw Object.assign(new Error('denied'), { name: 'LICENSE_DENIED' });
      }
      if (current !== client) return; // restarted meanwhile: the answer went to the old app
      recorder.call({
        t,
        dur: now() - t,
        app: index,
        kind: held ? 'renew' : 'checkout',
        servedBy: next.servedBy,
        code: undefined,
        mainRequests: callMainRequests,
        flags: state,
      });
      setLease(next);
    } catch (error) {
      const code = codeOf(error);
      if (current !== client || code === 'CLIENT_CLOSED') return;
      recorder.call({
        t,
        dur: now() - t,
        app: index,
        kind: held ? 'renew' : 'checkout',
        servedBy: 'none',
        code,
        mainRequests: callMainRequests,
        flags: state,
      });
      // A refusal (not an outage) of a lease that is still valid: the app is left without one.
      if (held && lease === held && !OUTAGE_CODES.has(code) && Date.now() < held.expiresAt) {
        recorder.event(now(), index, 'lapse', code);
        setLease(undefined);
      }
    } finally {
      if (current === client) busy = false;
    }
  };

  return {
    index,
    get holder() {
      return holder;
    },
    get busy() {
      return busy;
    },
    get skippedCalls() {
      return skippedCalls;
    },
    async start() {
      client = createClient();
      await call();
    },
    call,
    async restart() {
      if (stopped) return;
      const old = client;
      client = undefined;
      busy = false;
      recorder.event(now(), index, 'restart');
      setLease(undefined);
      // The app process ends: no release (main is down), its client simply goes away.
      await old?.close().catch(() => undefined);
      client = createClient();
      await call();
    },
    async stop() {
      stopped = true;
      const old = client;
      client = undefined;
      await old?.close().catch(() => undefined);
    },
  };
}
