// Telemetry without a dependency (DECISIONS.md "The SDK in the field"; docs/observability.md):
// the client's events and operations published on `node:diagnostics_channel`, where the runtime
// has it, for an APM (OpenTelemetry, Datadog, Sentry) or the app to subscribe to. One place: the
// client hands its event hub's emits here (the hub's tap) and runs its operations through it;
// nothing below the client knows of channels. Every payload goes through safe-payload.ts. In a
// browser it finds no channels and does nothing (decision 37).
import type { LicensingEventMap } from '../client-hooks.js';
import {
  type DiagnosticsChannel,
  type DiagnosticsChannels,
  type DiagnosticsTracingChannel,
  findDiagnosticsChannels,
} from '../internal/platform/diagnostics-channel.js';
import { createPayloadReducer } from './safe-payload.js';

/** Every channel's name starts so: `standby-licensing:failover`, `standby-licensing:checkout`. */
export const CHANNEL_PREFIX = 'standby-licensing:';

/** The operations the client runs through telemetry; the first three are also traced. */
export type TelemetryOperation = 'checkout' | 'renew' | 'restore' | 'release' | 'verify';

const TRACED: ReadonlySet<TelemetryOperation> = new Set(['checkout', 'renew', 'restore']);

/** Every hub event (a record, so that a new event fails to compile until it is listed). */
const HUB_EVENTS: Record<keyof LicensingEventMap, true> = {
  failover: true,
  failback: true,
  attemptFailed: true,
  leaseRenewed: true,
  renewFailed: true,
  idTokenGrace: true,
  rootExpiring: true,
  circuitOpen: true,
  circuitClose: true,
  keysFetched: true,
};

/** Every channel the telemetry publishes on, less the prefix. */
const CHANNELS: readonly string[] = [
  ...Object.keys(HUB_EVENTS),
  'checkout',
  'renew',
  'release',
  'restore',
  'clockRollback',
];

/** What {@link createLicensingTelemetry} needs from the client. */
export interface TelemetryDeps {
  /** Texts no payload may show (the hardware id and its label). */
  secrets: readonly (string | undefined)[];
  /** The client's clock, for the readings of a `clockRollback` message. */
  clock: { corrected(): number; readonly mark: number };
}

/** The client's telemetry. */
export interface LicensingTelemetry {
  /** The event hub's tap: publishes hub event `name` on `standby-licensing:<name>`. */
  publish(name: string, event: unknown): void;
  /**
   * Runs operation `name` (`start`: what it was asked, e.g. `{ items }`): traced through the
   * `TracingChannel` `standby-licensing:<name>` for checkout, renew and restore, then published on
   * `standby-licensing:<name>` with its `result` or `error` (not `verify`); a `CLOCK_ROLLBACK`
   * refusal is also published on `standby-licensing:clockRollback`. Settles as `run` does.
   */
  run<T>(name: TelemetryOperation, start: object, run: () => Promise<T>): Promise<T>;
}

/** True when any of the five channels of `tracing` has a subscriber. */
function isTraced(tracing: DiagnosticsTracingChannel): boolean {
  const { start, end, asyncStart, asyncEnd, error } = tracing;
  return (
    tracing.hasSubscribers ??
    [start, end, asyncStart, asyncEnd, error].some((channel) => channel.hasSubscribers)
  );
}

/**
 * The telemetry of one client, or undefined where the runtime has no `node:diagnostics_channel`
 * (browsers, workers): the client then runs as if there were none, at no cost.
 *
 * @param scope Where to look for the runtime's `process` (default `globalThis`; a test passes
 *   another).
 *
 * @example
 * const telemetry = createLicensingTelemetry({ secrets: [hardwareId], clock });
 * const events = createEventHub(options.on, logger, telemetry?.publish);
 * const result = await telemetry.run('checkout', { items }, () => checkout(items));
 */
export function createLicensingTelemetry(
  deps: TelemetryDeps,
  scope?: Parameters<typeof findDiagnosticsChannels>[0],
): LicensingTelemetry | undefined {
  const found = findDiagnosticsChannels(scope);
  if (!found) return undefined;
  /**
   * Every channel, held from the start. `node:diagnostics_channel` keeps a channel by name only
   * while someone holds it: Bun (1.4.5) lets one go that an app subscribed to by name
   * (`diagnostics.subscribe(name, fn)`) once it is collected, and `channel(name)` then returns a
   * new one without the subscriber. Held here, every lookup by name finds the same one.
   */
  const held = new Map<string, DiagnosticsChannel>();
  const heldTracing = new Map<TelemetryOperation, DiagnosticsTracingChannel>();
  const take = (loaded: DiagnosticsChannels | undefined) => {
    if (!loaded) return;
    for (const name of CHANNELS) held.set(name, loaded.channel(CHANNEL_PREFIX + name));
    for (const name of TRACED) heldTracing.set(name, loaded.tracingChannel(CHANNEL_PREFIX + name));
  };
  // Node 20.11-20.15: the module comes a few microtasks later; the first operation waits for it.
  let loading: Promise<unknown> | undefined;
  if (found instanceof Promise) {
    loading = found.then((loaded) => {
      take(loaded);
      loading = undefined;
    });
  } else {
    take(found);
  }
  const safe = createPayloadReducer(deps.secrets);

  const publish = (name: string, message: () => unknown) => {
    try {
      const channel = held.get(name);
      // Payloads are built only for a channel someone listens to.
      if (channel?.hasSubscribers) channel.publish(message());
    } catch {
      // Telemetry never breaks a licensing call (diagnostics_channel reports a subscriber's
      // own error itself).
    }
  };

  const telemetry: LicensingTelemetry = {
    publish: (name, event) => publish(name, () => safe(event)),
    run(name, start, run) {
      if (loading) return loading.then(() => telemetry.run(name, start, run));
      const tracing = heldTracing.get(name);
      const traced = tracing !== undefined && isTraced(tracing);
      const heard = (channel: string) => held.get(channel)?.hasSubscribers;
      // No one listens: the operation's own promise, not one tick later (callers and tests that
      // read state right after an event see what they saw without telemetry).
      if (!traced && !heard(name) && !heard('clockRollback')) return run();
      return observe(name, start, run, traced ? tracing : undefined);
    },
  };

  /** Runs an operation someone listens to: traced when `tracing` is given, then published. */
  async function observe<T>(
    name: TelemetryOperation,
    start: object,
    run: () => Promise<T>,
    tracing: DiagnosticsTracingChannel | undefined,
  ): Promise<T> {
    let promise: Promise<T> | undefined;
    if (tracing) {
      // The tracer's context gets `result` and `error` made safe; the caller the real ones.
      await tracing
        .tracePromise(() => {
          promise = run();
          return promise.then(safe, (error) => Promise.reject(safe(error)));
        }, safe(start) as object)
        .catch(() => undefined);
    }
    promise ??= run();
    const outcome = await promise.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const ended = () => safe({ ...start, ...outcome });
    if ((outcome as { error?: { code?: unknown } }).error?.code === 'CLOCK_ROLLBACK') {
      publish('clockRollback', () => ({
        operation: name,
        clockTime: deps.clock.corrected(),
        timeMark: deps.clock.mark,
        error: safe((outcome as { error: unknown }).error),
      }));
    }
    if (name !== 'verify') publish(name, ended);
    return promise;
  }
  return telemetry;
}
