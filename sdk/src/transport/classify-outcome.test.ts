import { fakeToken } from '@test/helpers/fake-licensing.js';
import { TimeoutError } from 'ky';
import { describe, expect, it } from 'vitest';
import type { FailureReason } from '../types.js';
import {
  classifyOutcome,
  EXPECT_ARRAY,
  EXPECT_BOOLEAN,
  EXPECT_JSON,
  EXPECT_JWKS,
  EXPECT_NONE,
  type ExpectedBody,
  expectTokens,
} from './classify-outcome.js';
import type { HttpOutcome } from './http-attempt.js';

const URL_ = 'http://main.test/authz/.jwt';
const NOW = Date.UTC(2030, 0, 1);

function response(status: number, body = '', headers: Record<string, string> = {}): HttpOutcome {
  return { kind: 'response', url: URL_, status, headers: new Headers(headers), body };
}

function socketError(code: string): HttpOutcome {
  const cause = Object.assign(new Error(code), { code });
  return {
    kind: 'error',
    url: URL_,
    error: new TypeError('fetch failed', { cause }),
    timedOut: false,
  };
}

const JWT = fakeToken({ ItemA: true });
const HTML = '<html><body>503 Service Unavailable</body></html>';

describe('classifyOutcome', () => {
  const cases: Array<[string, HttpOutcome, boolean, FailureReason, string]> = [
    [
      'connection refused',
      socketError('ECONNREFUSED'),
      true,
      'connection-refused',
      'SERVICE_UNAVAILABLE',
    ],
    [
      'connection reset',
      socketError('ECONNRESET'),
      true,
      'connection-reset',
      'SERVICE_UNAVAILABLE',
    ],
    ['DNS failure', socketError('ENOTFOUND'), true, 'dns', 'SERVICE_UNAVAILABLE'],
    ['DNS try again', socketError('EAI_AGAIN'), true, 'dns', 'SERVICE_UNAVAILABLE'],
    [
      'socket timeout',
      socketError('UND_ERR_HEADERS_TIMEOUT'),
      true,
      'timeout',
      'SERVICE_UNAVAILABLE',
    ],
    [
      'per-attempt timeout',
      { kind: 'error', url: URL_, error: new TimeoutError(new Request(URL_)), timedOut: true },
      true,
      'timeout',
      'SERVICE_UNAVAILABLE',
    ],
    [
      'dropped connection',
      { kind: 'error', url: URL_, error: new TypeError('Failed to fetch'), timedOut: false },
      true,
      'network',
      'SERVICE_UNAVAILABLE',
    ],
    ['500', response(500), true, 'server-error', 'SERVICE_UNAVAILABLE'],
    ['502', response(502), true, 'server-error', 'SERVICE_UNAVAILABLE'],
    [
      '503 HTML',
      response(503, HTML, { 'content-type': 'text/html' }),
      true,
      'server-error',
      'SERVICE_UNAVAILABLE',
    ],
    ['408', response(408), true, 'request-timeout', 'SERVICE_UNAVAILABLE'],
    ['429', response(429), true, 'rate-limited', 'SERVICE_UNAVAILABLE'],
    [
      '200 HTML',
      response(200, HTML, { 'content-type': 'text/html' }),
      true,
      'malformed-body',
      'SERVICE_UNAVAILABLE',
    ],
    ['400', response(400, '{"error":"invalid_request"}'), false, 'bad-request', 'REQUEST_REJECTED'],
    ['401', response(401, '{"error":"invalid_token"}'), false, 'unauthorized', 'UNAUTHORIZED'],
    ['403', response(403, '{"error":"forbidden"}'), false, 'forbidden', 'FORBIDDEN'],
    ['404', response(404), false, 'not-found', 'NOT_FOUND'],
    ['409', response(409), false, 'client-error', 'REQUEST_REJECTED'],
  ];

  it.each(cases)('main %s → outage %s', (_name, outcome, outage, reason, code) => {
    const verdict = classifyOutcome(outcome, {
      service: 'main',
      expect: expectTokens(1),
      now: NOW,
    });
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict).toMatchObject({ outage, reason });
    expect(verdict.error.code).toBe(code);
  });

  it('accepts a 200 with JWTs joined by &', () => {
    const verdict = classifyOutcome(response(200, `${JWT}&${JWT}`), {
      service: 'main',
      expect: expectTokens(2),
      now: NOW,
    });
    expect(verdict).toEqual({ ok: true, value: [JWT, JWT] });
  });

  it.each([
    ['one token where two were asked for', JWT, expectTokens(2)],
    ['three tokens where two were asked for', `${JWT}&${JWT}&${JWT}`, expectTokens(2)],
    ['a JSON object where a boolean was expected', '{"enabled":true}', EXPECT_BOOLEAN],
    ['an HTML page where a boolean was expected', HTML, EXPECT_BOOLEAN],
    ['an object where an array was expected', '{"a":1}', EXPECT_ARRAY],
    ['JSON without keys where a JWK set was expected', '{"key":[]}', EXPECT_JWKS],
    ['null where a JWK set was expected', 'null', EXPECT_JWKS],
  ])('treats a 200 with %s as an outage that says what was expected', (_name, body, expect_) => {
    const verdict = classifyOutcome(response(200, body), {
      service: 'standby',
      expect: expect_,
      now: NOW,
    });
    expect(verdict).toMatchObject({ ok: false, outage: true, reason: 'malformed-body' });
    if (verdict.ok) return;
    expect(verdict.error.code).toBe('SERVICE_UNAVAILABLE');
    const what = expect_.kind === 'json' ? expect_.what : expect_.kind === 'tokens' ? '2 JWTs' : '';
    expect(verdict.error.message).toContain(what);
  });

  it('reads what each expectation serves from a good 200', () => {
    const read = (body: string, expect_: ExpectedBody) =>
      classifyOutcome(response(200, body), { service: 'main', expect: expect_, now: NOW });
    expect(read('false', EXPECT_BOOLEAN)).toEqual({ ok: true, value: false });
    expect(read('[1]', EXPECT_ARRAY)).toEqual({ ok: true, value: [1] });
    expect(read('{"keys":[]}', EXPECT_JWKS)).toEqual({ ok: true, value: { keys: [] } });
    expect(read(HTML, EXPECT_NONE)).toEqual({ ok: true });
  });

  it('hands back the parsed body of a 200 when JSON is expected, so it is parsed once', () => {
    const verdict = classifyOutcome(response(200, '{"objects":[{"n":1}]}'), {
      service: 'events',
      expect: EXPECT_JSON,
      now: NOW,
    });
    expect(verdict).toEqual({ ok: true, value: { objects: [{ n: 1 }] } });
  });

  it('treats a 200 that is not JSON as an outage when JSON is expected', () => {
    const verdict = classifyOutcome(response(200, HTML), {
      service: 'main',
      expect: EXPECT_JSON,
      now: NOW,
    });
    expect(verdict).toMatchObject({ ok: false, outage: true, reason: 'malformed-body' });
  });

  it('maps any standby 403 to STANDBY_DORMANT without outage', () => {
    const verdict = classifyOutcome(response(403, '{"error":"standby_dormant"}'), {
      service: 'standby',
      expect: expectTokens(1),
      now: NOW,
    });
    expect(verdict).toMatchObject({ ok: false, outage: false, reason: 'standby-dormant' });
    if (!verdict.ok) expect(verdict.error.code).toBe('STANDBY_DORMANT');
  });

  it('carries status, URL and the ApiError fields', () => {
    const verdict = classifyOutcome(
      response(401, '{"error":"invalid_token","error_description":"expired"}'),
      {
        service: 'main',
        expect: expectTokens(1),
        now: NOW,
      },
    );
    expect(verdict.ok ? undefined : verdict.error).toMatchObject({
      status: 401,
      url: URL_,
      service: 'main',
      error: 'invalid_token',
      errorDescription: 'expired',
    });
  });

  it('reads Retry-After in seconds and as an HTTP date', () => {
    const seconds = classifyOutcome(response(429, '', { 'retry-after': '7' }), {
      service: 'main',
      expect: expectTokens(1),
      now: NOW,
    });
    expect(seconds).toMatchObject({ retryAfterMs: 7000 });
    const date = classifyOutcome(
      response(503, '', { 'retry-after': new Date(NOW + 12_000).toUTCString() }),
      { service: 'main', expect: expectTokens(1), now: NOW },
    );
    expect(date).toMatchObject({ retryAfterMs: 12_000 });
  });
});
