import { describe, expect, it } from 'vitest';
import { LicensingError } from '../errors.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import type { FailureReason } from '../types.js';
import { combineFailures, headlineOf, NOT_TRIED, sharedNetworkReason } from './combine-failures.js';

function attempt(reason: FailureReason, message = `failed: ${reason}. Do something.`) {
  const error = new LicensingError('SERVICE_UNAVAILABLE', message, {
    ...(reason === 'proxy' || reason === 'tls' ? { reason } : {}),
  });
  return { error, failed: new FailedAttempt({ ok: false, outage: true, reason, error }) };
}
const circuitOpen = new LicensingError('SERVICE_UNAVAILABLE', 'main not tried: circuit open', {
  reason: NOT_TRIED,
});

describe('combineFailures', () => {
  it.each<[string, FailureReason[], FailureReason, string | undefined, RegExp]>([
    [
      'every attempt at a proxy',
      ['proxy', 'proxy'],
      'proxy',
      'proxy',
      /check the proxy settings \(HTTPS_PROXY/,
    ],
    ['every attempt failed TLS', ['tls'], 'tls', 'tls', /`tls\.ca` option or NODE_EXTRA_CA_CERTS/],
    [
      'main at the proxy, the standby down',
      ['proxy'],
      'connection-refused',
      undefined,
      /Retry later/,
    ],
    ['main down, the standby at the proxy', ['server-error'], 'proxy', undefined, /Retry later/],
    ['main at the proxy, the standby TLS', ['proxy', 'proxy'], 'tls', undefined, /Retry later/],
  ])('%s → reason %s', (_name, mainReasons, standbyReason, reason, advice) => {
    const main = mainReasons.map((r) => attempt(r).error);
    const combined = combineFailures(main, attempt(standbyReason).failed) as LicensingError;
    expect(combined.code).toBe('SERVICE_UNAVAILABLE');
    expect(combined.reason).toBe(reason);
    // What happened per service, then what to do, once.
    expect(combined.message).toMatch(
      /^Neither licensing service could serve the request\. main: failed: \S+\. standby: failed: \S+\. /,
    );
    expect(combined.message).toMatch(advice);
    expect(combined.message).not.toContain('Do something');
    expect(combined.cause).toBeInstanceOf(AggregateError);
    expect((combined.cause as AggregateError).errors).toHaveLength(main.length + 1);
  });

  it('counts a main skipped by its open circuit as no attempt', () => {
    const combined = combineFailures([circuitOpen], attempt('tls').failed) as LicensingError;
    expect(combined.reason).toBe('tls');
    expect(combined.message).toContain('main: main not tried: circuit open.');
    expect(sharedNetworkReason([circuitOpen])).toBeUndefined();
  });

  it('keeps the standby’s refusal, with its own advice', () => {
    const dormant = new LicensingError('STANDBY_DORMANT', 'Dormant (url). Retry later.');
    const refused = new FailedAttempt({
      ok: false,
      outage: false,
      reason: 'standby-dormant',
      error: dormant,
    });
    const combined = combineFailures([attempt('proxy').error], refused) as LicensingError;
    expect(combined.code).toBe('STANDBY_DORMANT');
    expect(combined.reason).toBeUndefined();
    expect(combined.message).toBe(
      'The main licensing service failed and the standby refused: Dormant (url). Retry later.',
    );
  });
});

describe('headlineOf', () => {
  it('keeps what happened and drops the advice after it', () => {
    expect(
      headlineOf(new Error('Could not reach x (https://a.example/.jwt): refused. Check it.')),
    ).toBe('Could not reach x (https://a.example/.jwt): refused.');
    expect(headlineOf(new Error('no full stop'))).toBe('no full stop.');
  });
});
