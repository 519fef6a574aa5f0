import { AsyncLocalStorage } from 'node:async_hooks';
import * as diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { LicensingError } from '../errors.js';
import type { Lease } from '../types.js';
import { createLicensingTelemetry, type TelemetryDeps } from './licensing-telemetry.js';

const HW = 'hw-telemetry-unit';
const lease = {
  item: 'ItemA',
  leaseId: 'J1',
  licenseId: 'L1',
  token: 'eyJhbGciOiJSUzI1NiJ9.eyJodyI6Imh3In0.c2ln',
  claims: { iat: 1, exp: 2, hw: HW },
  expiresAt: 2000,
  refreshAt: 1500,
  servedBy: 'main',
} as Lease;
const safeLease = {
  item: 'ItemA',
  leaseId: 'J1',
  licenseId: 'L1',
  servedBy: 'main',
  expiresAt: 2000,
  refreshAt: 1500,
};
const deps: TelemetryDeps = { secrets: [HW], clock: { corrected: () => 1_000, mark: 5_000 } };

/** Subscriptions made by a test, undone after it. */
const undo: Array<() => void> = [];
afterEach(() => {
  for (const step of undo.splice(0)) step();
});

function listen(name: string): unknown[] {
  const seen: unknown[] = [];
  const onMessage = (message: unknown) => seen.push(message);
  diagnostics.subscribe(`standby-licensing:${name}`, onMessage);
  undo.push(() => diagnostics.unsubscribe(`standby-licensing:${name}`, onMessage));
  return seen;
}

function trace(name: string): Array<[string, Record<string, unknown>]> {
  const seen: Array<[string, Record<string, unknown>]> = [];
  const channel = diagnostics.tracingChannel(`standby-licensing:${name}`);
  const on =
    (event: string) =>
    (message: unknown): void => {
      // A copy: the context object is the same through the five events.
      seen.push([event, { ...(message as Record<string, unknown>) }]);
    };
  const handlers = {
    start: on('start'),
    end: on('end'),
    asyncStart: on('asyncStart'),
    asyncEnd: on('asyncEnd'),
    error: on('error'),
  };
  channel.subscribe(handlers);
  undo.push(() => channel.unsubscribe(handlers));
  return seen;
}

describe('createLicensingTelemetry', () => {
  it('is undefined where the runtime has no diagnostics_channel', () => {
    expect(createLicensingTelemetry(deps, {})).toBeUndefined();
  });

  it('publishes a hub event on its channel, made safe, and builds nothing when no one listens', () => {
    const telemetry = createLicensingTelemetry(deps)!;
    let reads = 0;
    const event = {
      get previous() {
        reads += 1;
        return lease;
      },
    };
    telemetry.publish('leaseRenewed', event);
    expect(reads).toBe(0);
    const seen = listen('leaseRenewed');
    telemetry.publish('leaseRenewed', event);
    expect(seen).toEqual([{ previous: safeLease }]);
  });

  it('traces a checkout (start, end, asyncStart, asyncEnd) and publishes its end; the caller gets the real result', async () => {
    const telemetry = createLicensingTelemetry(deps)!;
    const traced = trace('checkout');
    const ended = listen('checkout');
    const result = { leases: [lease], denied: [] };
    await expect(telemetry.run('checkout', { items: ['ItemA'] }, async () => result)).resolves.toBe(
      result,
    );
    expect(traced.map(([event]) => event)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(traced[0]![1]).toEqual({ items: ['ItemA'] });
    expect(traced[3]![1]).toEqual({
      items: ['ItemA'],
      result: { leases: [safeLease], denied: [] },
    });
    expect(ended).toEqual([{ items: ['ItemA'], result: { leases: [safeLease], denied: [] } }]);
  });

  it('traces a failed renewal with a safe copy of the error; the caller gets the error itself', async () => {
    const telemetry = createLicensingTelemetry(deps)!;
    const traced = trace('renew');
    const ended = listen('renew');
    const error = new LicensingError('SERVICE_UNAVAILABLE', `down (?hw=${HW})`, {
      reason: 'proxy',
    });
    const failing = telemetry.run('renew', { lease }, () => Promise.reject(error));
    await expect(failing).rejects.toBe(error);
    expect(traced.map(([event]) => event)).toEqual([
      'start',
      'end',
      'error',
      'asyncStart',
      'asyncEnd',
    ]);
    const published = traced[2]![1].error as LicensingError;
    expect(published).not.toBe(error);
    expect(published).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      reason: 'proxy',
      message: 'down (?hw=[redacted])',
    });
    expect(ended).toEqual([{ lease: safeLease, error: published }]);
  });

  it('runs the operation inside the tracing channel, so a bound store reaches what it publishes', async () => {
    const telemetry = createLicensingTelemetry(deps)!;
    const store = new AsyncLocalStorage<string>();
    const start = diagnostics.tracingChannel('standby-licensing:restore').start;
    start.bindStore(store, () => 'the restore span');
    undo.push(() => start.unbindStore(store));
    const inside: Array<string | undefined> = [];
    const onFailover = () => inside.push(store.getStore());
    diagnostics.subscribe('standby-licensing:failover', onFailover);
    undo.push(() => diagnostics.unsubscribe('standby-licensing:failover', onFailover));
    await telemetry.run('restore', {}, async () => {
      await Promise.resolve();
      telemetry.publish('failover', { from: 'main', to: 'standby', reason: 'timeout' });
      return { leases: [] };
    });
    expect(inside).toEqual(['the restore span']);
  });

  it('publishes a clock rollback, with the clock readings, for a restore or a verify refused so', async () => {
    const telemetry = createLicensingTelemetry(deps)!;
    const rollbacks = listen('clockRollback');
    const verified = listen('verify');
    const error = new LicensingError('CLOCK_ROLLBACK', 'the clock was set back');
    await expect(telemetry.run('verify', {}, () => Promise.reject(error))).rejects.toBe(error);
    await expect(
      telemetry.run('release', { leases: [lease] }, async () => undefined),
    ).resolves.toBe(undefined);
    expect(rollbacks).toEqual([
      {
        operation: 'verify',
        clockTime: 1_000,
        timeMark: 5_000,
        error: expect.objectContaining({ code: 'CLOCK_ROLLBACK' }),
      },
    ]);
    // verify() is neither traced nor published: it is the app's own check, often per frame.
    expect(verified).toEqual([]);
  });

  it('does not trace release and verify, and runs untraced when no one listens', async () => {
    const telemetry = createLicensingTelemetry(deps)!;
    const traced = trace('release');
    const released = listen('release');
    await telemetry.run('release', { leases: [lease] }, async () => undefined);
    expect(traced).toEqual([]);
    expect(released).toEqual([{ leases: [safeLease], result: undefined }]);
    for (const step of undo.splice(0)) step();
    await expect(telemetry.run('checkout', {}, async () => 'plain')).resolves.toBe('plain');
  });

  it('waits for the module on Node 20.11-20.15 (an import), then traces the first operation', async () => {
    const telemetry = createLicensingTelemetry(deps, {
      process: { versions: { node: '20.11.0' } },
    })!;
    const traced = trace('checkout');
    await expect(telemetry.run('checkout', {}, async () => 'done')).resolves.toBe('done');
    expect(traced.map(([event]) => event)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
  });
});

describe('channels held from the start (a runtime that forgets a channel no one holds)', () => {
  /**
   * A diagnostics_channel whose `channel(name)` hands out a new channel at every call, as Bun's
   * does for a name whose channel was collected: a subscriber stays on the channel it subscribed.
   */
  function forgetfulChannels() {
    const handedOut = new Map<string, Array<{ subscribers: Array<(m: unknown) => void> }>>();
    const newChannel = (name: string) => {
      const subscribers: Array<(m: unknown) => void> = [];
      const channel = {
        subscribers,
        get hasSubscribers() {
          return subscribers.length > 0;
        },
        publish: (message: unknown) => {
          for (const subscriber of subscribers) subscriber(message);
        },
      };
      handedOut.set(name, [...(handedOut.get(name) ?? []), channel]);
      return channel;
    };
    const module = {
      channel: newChannel,
      tracingChannel: (name: string) => ({
        start: newChannel(`tracing:${name}:start`),
        end: newChannel(`tracing:${name}:end`),
        asyncStart: newChannel(`tracing:${name}:asyncStart`),
        asyncEnd: newChannel(`tracing:${name}:asyncEnd`),
        error: newChannel(`tracing:${name}:error`),
        tracePromise: <T>(fn: () => Promise<T>) => fn(),
      }),
    };
    return {
      handedOut,
      scope: { process: { versions: { node: '20.20.0' }, getBuiltinModule: () => module } },
    };
  }

  it('publishes on the channel it took at creation, which an app subscribed to later', () => {
    const { handedOut, scope } = forgetfulChannels();
    const telemetry = createLicensingTelemetry(deps, scope)!;
    // Every channel was taken at creation, hub events and operations alike.
    for (const name of ['failover', 'keysFetched', 'checkout', 'clockRollback']) {
      expect(handedOut.get(`standby-licensing:${name}`)).toHaveLength(1);
    }
    // The app subscribes to the channel the runtime still holds for the name (the SDK's).
    const seen: unknown[] = [];
    handedOut.get('standby-licensing:failover')![0]!.subscribers.push((m) => seen.push(m));
    telemetry.publish('failover', { from: 'main', to: 'standby', reason: 'timeout' });
    expect(seen).toEqual([{ from: 'main', to: 'standby', reason: 'timeout' }]);
    // No new channel asked for: a lookup by name would have found none with the subscriber.
    expect(handedOut.get('standby-licensing:failover')).toHaveLength(1);
  });
});
