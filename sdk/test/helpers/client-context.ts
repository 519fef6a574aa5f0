// Test support for unit tests of the client's trust steps (sdk/src/client/accept-token.ts,
// client-keys.ts): a ClientContext with the real clock, key sources and lease state on the fake
// services' root (test/helpers/fake-licensing.ts), and a transport that answers JWK set requests
// from a script. Operations that route through the strategy are not wired: these steps never do.
import { vi } from 'vitest';
import type { ClientContext } from '../../src/client/client-context.js';
import { createClientKeys } from '../../src/client/client-keys.js';
import { createEventHub } from '../../src/client-hooks.js';
import { createLeaseState } from '../../src/lease/lease-state.js';
import { createMemoryLeaseStore } from '../../src/lease/memory-lease-store.js';
import { createTrustedClock } from '../../src/lease/trusted-clock.js';
import { parseTrustedRoots } from '../../src/lease/trusted-roots.js';
import type { LicensingTransport } from '../../src/transport/licensing-transport.js';
import type { LeaseStore, LicensingService } from '../../src/types.js';
import { fakeServices } from './fake-licensing.js';

/** What {@link trustContext} takes. */
export interface TrustContextOptions {
  /** The local clock, in ms (a mutable holder so tests move it). */
  local: { now: number };
  hardwareId?: string;
  toleranceMs?: number;
  cooldownMs?: number;
  store?: LeaseStore;
  /** The JWK set each service answers, or an error to throw. Default: the fake services' sets. */
  jwks?: Partial<Record<LicensingService, unknown>>;
  /** The services' time (ms) the JWK set answers show, as a `Date` header would. Default none. */
  serviceTime?: number;
  /** The monotonic clock, in ms (a mutable holder). Default: one that stands still at 0. */
  monotonic?: { now: number };
}

/**
 * A ClientContext on the fake services' root with real trust parts; `transport.request` is a
 * mock answering `GET /.well-known/jwks.json` from `options.jwks`.
 */
export function trustContext(options: TrustContextOptions) {
  const toleranceMs = options.toleranceMs ?? 60_000;
  const monotonic = options.monotonic ?? { now: 0 };
  const clock = createTrustedClock({
    now: () => options.local.now,
    monotonic: () => monotonic.now,
    toleranceMs,
  });
  const jwks = { ...fakeServices.jwks, ...options.jwks };
  const request = vi.fn(async (service: LicensingService, req: { path: string }) => {
    if (req.path !== '/.well-known/jwks.json') throw new Error(`unexpected request ${req.path}`);
    const answer = jwks[service];
    if (answer instanceof Error) throw answer;
    return { value: answer, serviceTime: options.serviceTime };
  });
  const transport = { request } as unknown as LicensingTransport;
  const keys = createClientKeys({
    transport,
    clock,
    anchors: parseTrustedRoots([fakeServices.trustedRoot]),
    mainUrl: 'http://main.test',
    standbyUrl: 'http://standby.test',
    cooldownMs: options.cooldownMs ?? 30_000,
    attemptTimeoutMs: 5_000,
    events: createEventHub({}),
  });
  const store = options.store ?? createMemoryLeaseStore();
  const state = createLeaseState({ store, clock, keys, toleranceMs, logger: undefined });
  const context = {
    transport,
    keys,
    clock,
    state,
    hardwareId: options.hardwareId,
    toleranceMs,
  } as unknown as ClientContext;
  return { context, request, keys, clock, state, store };
}
