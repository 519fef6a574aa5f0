import { describe, expect, it } from 'vitest';
import {
  ApiResponseError,
  isLicensingError,
  LicensingError,
  TokenInvalidError,
} from '../errors.js';
import type { Lease } from '../types.js';
import { createPayloadReducer } from './safe-payload.js';

const HW = 'workstation-42 (Zoë)';
const NAME = 'Alice laptop';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl';
const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----';

const lease: Lease = {
  item: 'ItemA',
  leaseId: 'J1',
  licenseId: 'L1',
  token: JWT,
  claims: { iat: 1, exp: 2, hw: HW, ItemA: true },
  expiresAt: 2000,
  refreshAt: 1500,
  servedBy: 'standby',
};

/** Every text reachable from `value`, own non-enumerable fields (message, stack, cause) too. */
function texts(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  return Object.getOwnPropertyNames(value).flatMap((key) => [
    key,
    ...texts((value as Record<string, unknown>)[key], seen),
  ]);
}

describe('createPayloadReducer', () => {
  const safe = createPayloadReducer([HW, NAME, undefined]);

  it('reduces a lease to its public fields: no token, no claims', () => {
    expect(safe({ previous: lease, leases: [lease] })).toEqual({
      previous: {
        item: 'ItemA',
        leaseId: 'J1',
        licenseId: 'L1',
        servedBy: 'standby',
        expiresAt: 2000,
        refreshAt: 1500,
      },
      leases: [expect.objectContaining({ leaseId: 'J1' })],
    });
    expect(texts(safe(lease)).join('\n')).not.toContain(JWT.slice(0, 20));
  });

  it('copies an error with its code, reason and fields, without the hardware id anywhere', () => {
    const url = `http://main.test/authz/.jwt?ItemA&hw=${encodeURIComponent(HW)};name=${encodeURIComponent(NAME)}`;
    const attempt = new ApiResponseError('SERVICE_UNAVAILABLE', `main answered 503 (${url})`, {
      status: 503,
      url,
      service: 'main',
    });
    const hardware = new TokenInvalidError('hardware', `bound to another device (hw "${HW}")`);
    const error = new LicensingError('SERVICE_UNAVAILABLE', 'both failed', {
      cause: new AggregateError([attempt, hardware], 'attempts'),
    });
    const copy = safe(error) as LicensingError & { cause: AggregateError };
    expect(copy).toBeInstanceOf(Error);
    expect(copy).not.toBe(error);
    expect(isLicensingError(copy)).toBe(true);
    expect(copy).toMatchObject({ name: 'LicensingError', code: 'SERVICE_UNAVAILABLE' });
    const [first, second] = copy.cause.errors as [ApiResponseError, TokenInvalidError];
    expect(first).toMatchObject({ name: 'ApiResponseError', status: 503, service: 'main' });
    expect(first.url).toBe('http://main.test/authz/.jwt?ItemA&hw=[redacted];name=[redacted]');
    expect(second).toMatchObject({ code: 'TOKEN_INVALID', reason: 'hardware' });
    const all = texts(copy).join('\n');
    for (const secret of [HW, encodeURIComponent(HW), NAME, encodeURIComponent(NAME)]) {
      expect(all).not.toContain(secret);
    }
    // The scan finds them in the original: the check above can fail.
    expect(texts(error).join('\n')).toContain(encodeURIComponent(HW));
  });

  it('replaces tokens and PEM blocks in texts, drops secret fields, keeps dates and numbers', () => {
    const notAfter = new Date(0);
    expect(
      safe({
        message: `Bearer ${JWT} and ${PEM}`,
        idToken: JWT,
        hw: HW,
        keys: [{ n: 'AQAB' }],
        notAfter,
        daysLeft: 3,
        nested: { claims: { hw: HW }, service: 'main' },
      }),
    ).toEqual({
      message: 'Bearer [redacted] and [redacted]',
      notAfter,
      daysLeft: 3,
      nested: { service: 'main' },
    });
  });

  it('stops at a depth, so a cycle or a long cause chain ends', () => {
    const cyclic: Record<string, unknown> = { service: 'main' };
    cyclic.self = cyclic;
    expect(() => safe(cyclic)).not.toThrow();
  });

  it('replaces nothing when the client has no hardware id', () => {
    expect(createPayloadReducer([undefined])({ message: 'plain' })).toEqual({ message: 'plain' });
  });
});
