// The fake services' `Authorization` check (docs/protocol.md "Authentication"): ID tokens of the
// fake issuer (RS256, `iss`, `aud`, `iat` at most 5 minutes ahead, `exp` plus the service's grace)
// and the ServiceKeyHash of main's key. Private to the testing kit.
import { compactVerify } from 'jose';
import { apiError } from './fake-answers.js';

/** Schemes the services accept (their neutral names). */
export type FakeScheme = 'IdToken' | 'Bearer' | 'ServiceKeyHash';

/** Who made an authenticated request. */
export interface FakeCaller {
  /** The ID token's `sub`, or `service` for a ServiceKeyHash caller. */
  sub: string;
  scheme: FakeScheme;
}

/** What one service checks. */
export interface FakeAuthRules {
  /** Realm of `WWW-Authenticate`: `main` or `standby`. */
  realm: string;
  /** Accepted schemes, in the order `WWW-Authenticate` names them. */
  schemes: readonly FakeScheme[];
  /** Seconds an ID token stays acceptable after `exp`: 86 400 on the standby, 0 on main. */
  graceSeconds: number;
  /** The issuer's public key, `iss` and the client id `aud` must contain. */
  issuer: { publicKey: CryptoKey; iss: string; audience: string };
  /** Lowercase hex ServiceKeyHash of main's key. */
  serviceKeyHash: string;
}

const MAX_IAT_AHEAD_SECONDS = 300;

/** Why an ID token is refused, or its claims. */
async function readIdToken(
  token: string,
  rules: FakeAuthRules,
  nowMs: number,
): Promise<{ sub: string } | string> {
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(token, rules.issuer.publicKey, { algorithms: ['RS256'] });
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    return 'The ID token is malformed, not RS256, or not signed by the fake issuer';
  }
  const { iss, sub, aud, iat, exp } = payload;
  if (typeof iss !== 'string' || typeof sub !== 'string' || sub === '') {
    return 'The ID token lacks iss or sub';
  }
  if (typeof iat !== 'number' || typeof exp !== 'number') return 'The ID token lacks iat or exp';
  if (iss !== rules.issuer.iss) return 'The ID token has an untrusted issuer';
  if (!(Array.isArray(aud) ? aud : [aud]).includes(rules.issuer.audience)) {
    return 'The ID token audience does not contain the client id';
  }
  const now = nowMs / 1000;
  if (iat > now + MAX_IAT_AHEAD_SECONDS) return 'The ID token was issued in the future';
  if (now > exp + rules.graceSeconds) {
    return rules.graceSeconds > 0
      ? 'The ID token expired more than 24 hours ago'
      : 'The ID token has expired';
  }
  return { sub };
}

/**
 * The caller of `request`, or the 401 answer refusing it (`unauthorized` without a header,
 * `invalid_token` otherwise, with `WWW-Authenticate` naming the accepted schemes).
 */
export async function authenticate(
  request: Request,
  rules: FakeAuthRules,
  nowMs: number,
): Promise<FakeCaller | Response> {
  const challenge = {
    'www-authenticate': rules.schemes.map((s) => `${s} realm="${rules.realm}"`).join(', '),
  };
  const refuse = (error: string, description: string) =>
    apiError(401, error, description, nowMs, challenge);
  const header = request.headers.get('authorization') ?? '';
  if (header === '') return refuse('unauthorized', 'The Authorization header is missing');
  const space = header.indexOf(' ');
  const scheme = rules.schemes.find(
    (name) => space > 0 && name.toLowerCase() === header.slice(0, space).toLowerCase(),
  );
  const credentials = space > 0 ? header.slice(space + 1).trim() : '';
  if (scheme === undefined || credentials === '') {
    return refuse('invalid_token', `Expected ${rules.schemes.join(' or ')} credentials`);
  }
  if (scheme === 'ServiceKeyHash') {
    if (credentials.toLowerCase() !== rules.serviceKeyHash) {
      return refuse('invalid_token', 'The ServiceKeyHash does not match a trusted key');
    }
    return { sub: 'service', scheme };
  }
  const read = await readIdToken(credentials, rules, nowMs);
  if (typeof read === 'string') return refuse('invalid_token', read);
  return { sub: read.sub, scheme };
}
