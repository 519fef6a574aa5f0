import type { RootExpiringInfo } from '../client-hooks.js';
import { option } from '../internal/validate-option.js';
import type { JwksLoader, TrustedRoot } from '../types.js';
import { DEFAULTS } from './defaults.js';

/** Options of `createLeaseVerifier`. */
export interface LeaseVerifierOptions {
  /** The root certificates embedded in the app; at least one. */
  roots: TrustedRoot[];
  /** Fetches a service's JWK set (called without a signal: one load serves every waiting call). */
  loadJwks: JwksLoader;
  /** Clock in ms since the epoch. Default: `Date.now`. */
  now?: () => number;
  /** Allowed clock difference for `exp`, `iat`, `nbf` and certificate validity, in ms. Default: 60 000. */
  clockToleranceMs?: number;
  /**
   * After a JWKS fetch brought no trusted key for a `kid` (it lacked it, or its key failed the
   * chain check), no other fetch for an unknown `kid` of that service happens for this long,
   * whatever the `kid`, in ms (so a stream of bad tokens cannot hammer the service, while a
   * corrected JWKS is picked up after it). Default: 30 000.
   */
  unknownKidCooldownMs?: number;
  /** When set, every lease must carry this `hw` (bound to this device). Default: not checked. */
  hardwareId?: string;
  /** Called once per root that is within 90 days of its expiry (or past it). Default: none. */
  onRootExpiring?: (info: RootExpiringInfo) => void;
}

/** Verifier options after defaults and validation (roots are parsed by the verifier). */
export interface ResolvedLeaseVerifierOptions {
  roots: unknown;
  loadJwks: JwksLoader;
  now: () => number;
  clockToleranceMs: number;
  unknownKidCooldownMs: number;
  hardwareId: string | undefined;
  onRootExpiring: ((info: RootExpiringInfo) => void) | undefined;
}

/** Applies `DEFAULTS.trust` and validates `createLeaseVerifier`'s options once. */
export function resolveLeaseVerifierOptions(
  options: LeaseVerifierOptions,
): ResolvedLeaseVerifierOptions {
  const o = option.object('options', options);
  option.knownKeys('', o, [
    'roots',
    'loadJwks',
    'now',
    'clockToleranceMs',
    'unknownKidCooldownMs',
    'hardwareId',
    'onRootExpiring',
  ]);
  option.requireFn('loadJwks', o.loadJwks);
  const d = DEFAULTS.trust;
  return {
    roots: o.roots,
    loadJwks: o.loadJwks as JwksLoader,
    now: option.fn('now', o.now, Date.now),
    clockToleranceMs: option.number('clockToleranceMs', o.clockToleranceMs, d.clockToleranceMs),
    unknownKidCooldownMs: option.number(
      'unknownKidCooldownMs',
      o.unknownKidCooldownMs,
      d.unknownKidCooldownMs,
    ),
    hardwareId: option.string('hardwareId', o.hardwareId),
    onRootExpiring: option.fn<ResolvedLeaseVerifierOptions['onRootExpiring']>(
      'onRootExpiring',
      o.onRootExpiring,
      undefined,
    ),
  };
}
