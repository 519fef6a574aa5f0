import { TimeoutError } from 'ky';
import { describe, expect, it } from 'vitest';
import { fakeToken } from '../../test/helpers/fake-licensing.js';
import { NetworkSetupError } from '../internal/network-setup-error.js';
import { ProxyRouteError } from '../internal/proxy-route-error.js';
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
    const what = expect_.kind === 'none' ? '' : expect_.what;
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

describe('classifyOutcome: the network in the way', () => {
  const PROXY = 'http://proxy.example:3128';

  function coded(code: string, message = code): Error {
    return Object.assign(new Error(message), { code });
  }
  /** undici's fetch error around `cause`, as the SDK's default fetch throws it. */
  function failure(cause: Error, proxy?: { status?: number; unusable?: boolean }): HttpOutcome {
    const fetchError = new TypeError('fetch failed', { cause });
    const error = proxy ? new ProxyRouteError(PROXY, { cause: fetchError, ...proxy }) : fetchError;
    return { kind: 'error', url: URL_, error, timedOut: false };
  }
  const classify = (outcome: HttpOutcome) =>
    classifyOutcome(outcome, { service: 'main', expect: expectTokens(1), now: NOW });

  it.each<[string, HttpOutcome, FailureReason, string | undefined, RegExp]>([
    [
      'an unreachable proxy',
      failure(coded('ECONNREFUSED'), {}),
      'proxy',
      'proxy',
      /through the proxy http:\/\/proxy\.example:3128: the proxy is unreachable \(ECONNREFUSED\)\. Check the proxy settings \(HTTPS_PROXY/,
    ],
    [
      'a proxy host that does not resolve',
      failure(coded('ENOTFOUND'), {}),
      'proxy',
      'proxy',
      /proxy is unreachable \(ENOTFOUND\)/,
    ],
    [
      'a proxy asking for credentials on CONNECT (407)',
      failure(new Error('Proxy response (407) !== 200 when HTTP Tunneling'), { status: 407 }),
      'proxy',
      'proxy',
      /requires authentication \(HTTP 407\)\. Put the proxy's user name and password/,
    ],
    [
      'a proxy refusing the destination (403)',
      failure(new Error('Proxy response (403) !== 200 when HTTP Tunneling'), { status: 403 }),
      'proxy',
      'proxy',
      /refused to forward .* \(HTTP 403\)\. Ask the network administrator/,
    ],
    [
      'an unusable proxy setting',
      {
        kind: 'error',
        url: URL_,
        error: new ProxyRouteError('socks5://proxy.example:1080', {
          cause: new TypeError('socks5: proxies are not supported (use an http:// proxy)'),
          unusable: true,
        }),
        timedOut: false,
      },
      'proxy',
      'proxy',
      /cannot be used .*socks5.*Fix the proxy settings/,
    ],
    [
      'a proxy that cannot reach the service (502): an outage of the service',
      failure(new Error('Proxy response (502) !== 200 when HTTP Tunneling'), { status: 502 }),
      'network',
      undefined,
      /could not connect to the main licensing service .*\(HTTP 502\)\. Check that the service is up/,
    ],
    [
      'a reset inside the tunnel',
      failure(coded('ECONNRESET'), {}),
      'connection-reset',
      undefined,
      /connection reset\. Retry later/,
    ],
    [
      'a certificate from an unknown CA',
      failure(coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate')),
      'tls',
      'tls',
      /is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE.*`tls\.ca` option or NODE_EXTRA_CA_CERTS/,
    ],
    [
      'a TLS-inspecting proxy whose CA is not trusted',
      failure(
        coded('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'),
        {},
      ),
      'tls',
      'tls',
      /not trusted \(SELF_SIGNED_CERT_IN_CHAIN/,
    ],
    [
      'a certificate for another host',
      failure(
        coded('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
      ),
      'tls',
      'tls',
      /is for another host name .*Check the host name in the URL/,
    ],
    [
      'an expired certificate',
      failure(coded('CERT_HAS_EXPIRED', 'certificate has expired')),
      'tls',
      'tls',
      /outside its validity .*Check this computer's date and time/,
    ],
    [
      'a handshake with something that does not speak TLS',
      failure(coded('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number')),
      'tls',
      'tls',
      /TLS handshake .* failed .*Check that the URL is https:\/\/ to a port that serves HTTPS/,
    ],
    [
      'a 407 answer (a proxy the app’s own fetch went through)',
      response(407, '<html>Proxy Authentication Required</html>'),
      'proxy',
      'proxy',
      /A proxy on the way .* requires authentication \(HTTP 407/,
    ],
  ])('%s', (_name, outcome, reason, errorReason, message) => {
    const verdict = classify(outcome);
    expect(verdict).toMatchObject({ ok: false, outage: true, reason });
    if (verdict.ok) return;
    expect(verdict.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(verdict.error.reason).toBe(errorReason);
    expect(verdict.error.message).toMatch(message);
    expect(verdict.error.message).not.toContain('secret');
  });

  it('ends every failure message with what to do', () => {
    const outcomes: HttpOutcome[] = [
      socketError('ECONNREFUSED'),
      socketError('ENOTFOUND'),
      socketError('ECONNRESET'),
      { kind: 'error', url: URL_, error: new TypeError('Failed to fetch'), timedOut: false },
      { kind: 'error', url: URL_, error: new Error('aborted'), timedOut: true },
      failure(coded('ECONNREFUSED'), {}),
      failure(coded('CERT_HAS_EXPIRED')),
      ...[200, 400, 401, 403, 404, 407, 408, 409, 429, 500, 503].map((status) =>
        response(status, status === 200 ? HTML : ''),
      ),
    ];
    for (const service of ['main', 'standby', 'events'] as const) {
      for (const outcome of outcomes) {
        const verdict = classifyOutcome(outcome, { service, expect: expectTokens(1), now: NOW });
        if (verdict.ok) throw new Error('expected a failure');
        // "<what happened>. <what to do>." — at least two sentences, the last an instruction.
        expect(verdict.error.message).toMatch(
          /\.\s+(Check|Retry|Put|Ask|Fix|The service|If the network)[\s\S]*\.$/,
        );
      }
    }
  });
});

describe('classifyOutcome: the SDK set up so that it cannot send', () => {
  it.each([
    [
      'the network module missing',
      new NetworkSetupError("The SDK's network module ... could not be loaded (x). Keep ..."),
    ],
    [
      'undici missing behind a proxy',
      new TypeError('wrapped', { cause: new NetworkSetupError('undici ... could not be loaded') }),
    ],
    [
      // The CommonJS build's copy of the class: found by name.
      'a copy of the class',
      Object.assign(new Error('module could not be loaded'), { name: 'NetworkSetupError' }),
    ],
  ])('%s: INVALID_ARGUMENT, reason network-setup, no outage', (_name, error) => {
    const verdict = classifyOutcome(
      { kind: 'error', url: URL_, error, timedOut: false },
      { service: 'main', expect: expectTokens(1), now: NOW },
    );
    expect(verdict).toMatchObject({
      ok: false,
      outage: false,
      reason: 'setup',
      error: { code: 'INVALID_ARGUMENT', reason: 'network-setup', cause: error },
    });
    if (!verdict.ok) expect(verdict.error.message).toMatch(/could not be loaded.*\.$/);
  });
});
