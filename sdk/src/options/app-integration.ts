// Options of what an app's lifecycle needs around the licensing client: `client.close(options)`,
// `releaseOnExit` and `machineId` (`/node`), `releaseOnPageHide` (browsers). Validated once here,
// with their defaults in `DEFAULTS.close`.
import { option } from '../internal/validate-option.js';
import type { CallOptions } from '../types.js';
import { DEFAULTS } from './defaults.js';

/** Options of `client.close`. */
export interface CloseOptions extends CallOptions {
  /**
   * Release every lease the client holds (one request through failover, best effort), then close.
   * Default false: only the leases of `keepAlive` keepers are released, as each keeper's
   * `releaseOnClose` says (the behaviour of `close()` before this option).
   */
  release?: boolean;
  /**
   * With `release`: the longest the release may take, in ms; the client closes when it has
   * answered or when this has passed. Default 2 000.
   */
  timeoutMs?: number;
  /**
   * With `release`: send the release with fetch's `keepalive`, so that it outlives a page being
   * unloaded (what `releaseOnPageHide` uses). A release is a GET without a body, well within the
   * 64 KiB that browsers allow keepalive requests in flight. Default false.
   */
  keepalive?: boolean;
}

/** `client.close` options after defaults and validation. */
export interface ResolvedCloseOptions {
  release: boolean;
  timeoutMs: number;
  keepalive: boolean;
  signal: AbortSignal | undefined;
}

/** Options of `releaseOnExit(client, options)` (`@standby-licensing/sdk/node`). */
export interface ReleaseOnExitOptions {
  /** The longest the release may hold up the exit, in ms. Default 2 000. */
  timeoutMs?: number;
}

/** An object that dispatches `pagehide` (a window). */
export interface PageHideTarget {
  addEventListener(type: 'pagehide', listener: () => void): void;
  removeEventListener(type: 'pagehide', listener: () => void): void;
}

/** Options of `releaseOnPageHide(client, options)`. */
export interface ReleaseOnPageHideOptions {
  /** Where `pagehide` fires. Default `globalThis` when it has `addEventListener` (a window). */
  target?: PageHideTarget;
}

/** Options of `machineId(options)` (`@standby-licensing/sdk/node`). */
export interface MachineIdOptions {
  /**
   * The app's own identifier, e.g. its bundle id `com.example.app`: the key of the HMAC, so two
   * apps on one machine get different ids and neither learns the OS machine id.
   */
  appId: string;
}

/** Applies `DEFAULTS.close` to `client.close` options and validates them. */
export function resolveCloseOptions(options: unknown = {}): ResolvedCloseOptions {
  const o = option.object('close options', options);
  option.knownKeys('close options', o, ['release', 'timeoutMs', 'keepalive', 'signal']);
  return {
    release: option.boolean('release', o.release, false),
    timeoutMs: option.number('timeoutMs', o.timeoutMs, DEFAULTS.close.timeoutMs),
    keepalive: option.boolean('keepalive', o.keepalive, false),
    signal: option.signal('signal', o.signal),
  };
}

/** Applies `DEFAULTS.close` to `releaseOnExit` options and validates them. */
export function resolveReleaseOnExitOptions(options: unknown = {}): Required<ReleaseOnExitOptions> {
  const o = option.object('releaseOnExit options', options);
  option.knownKeys('releaseOnExit options', o, ['timeoutMs']);
  return { timeoutMs: option.number('timeoutMs', o.timeoutMs, DEFAULTS.close.timeoutMs) };
}

/**
 * Validates `releaseOnPageHide` options; `target` undefined means the runtime has no window
 * (Node, a worker), where nothing is registered.
 */
export function resolvePageHideOptions(options: unknown = {}): {
  target: PageHideTarget | undefined;
} {
  const o = option.object('releaseOnPageHide options', options);
  option.knownKeys('releaseOnPageHide options', o, ['target']);
  if (o.target !== undefined) {
    const target = option.object('target', o.target);
    option.requireFn('target.addEventListener', target.addEventListener);
    option.requireFn('target.removeEventListener', target.removeEventListener);
    return { target: target as unknown as PageHideTarget };
  }
  const global = globalThis as Partial<PageHideTarget> & { document?: unknown };
  const isWindow =
    typeof global.addEventListener === 'function' &&
    typeof global.removeEventListener === 'function' &&
    global.document !== undefined;
  return { target: isWindow ? (global as PageHideTarget) : undefined };
}

/** Validates `machineId` options. */
export function resolveMachineIdOptions(options: unknown): MachineIdOptions {
  const o = option.object('options', options);
  option.knownKeys('', o, ['appId']);
  const appId = option.string('appId', o.appId);
  if (appId === undefined) option.fail('appId', 'Expected `appId` to be a non-empty string');
  return { appId: appId as string };
}
