// Test helper: ID tokens signed by a mock server's built-in issuer (valid, expired, forged).
import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { signCompactJws } from '../../src/crypto/jws.js';

/** Options of {@link signTestIdToken}: claim overrides and how to sign. */
export interface TestIdTokenOptions {
  claims?: Record<string, unknown>;
  /** `RS256` (default, with the built-in issuer key), `HS256` or `none`. */
  alg?: 'RS256' | 'HS256' | 'none';
  /** Corrupt the signature. */
  tamper?: boolean;
  /** Extra protected-header members (RS256 only), e.g. `{ crit: ['exp'], exp: 1 }`. */
  header?: Record<string, unknown>;
  /** Write the RS256 signature in standard base64 with padding (`+/=`) instead of base64url. */
  standardBase64?: boolean;
}

/**
 * Signs an ID token with the app's built-in issuer key (test helper): `iss`, `aud`, `sub`, `iat`
 * and `exp` (1 h) are valid for `app` at its current clock unless overridden.
 */
export function signTestIdToken(app: FastifyInstance, options: TestIdTokenOptions = {}): string {
  const iat = Math.floor(app.clock.now() / 1000);
  const payload = {
    iss: app.config.issuer,
    aud: [app.config.clientId],
    sub: 'user-1',
    iat,
    exp: iat + 3600,
    ...options.claims,
  };
  const alg = options.alg ?? 'RS256';
  if (alg === 'RS256') {
    const token = signCompactJws(
      { alg, kid: app.keyring.issuer.kid, typ: 'JWT', ...options.header },
      payload,
      app.keyring.issuer.privateKey,
    );
    if (options.standardBase64) {
      const [h, p, sig] = token.split('.') as [string, string, string];
      return `${h}.${p}.${Buffer.from(sig, 'base64url').toString('base64')}`;
    }
    return options.tamper ? `${token.slice(0, -6)}AAAAAA` : token;
  }
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg, typ: 'JWT' })}.${encode(payload)}`;
  if (alg === 'none') return `${input}.`;
  return `${input}.${createHmac('sha256', 'secret').update(input).digest('base64url')}`;
}
