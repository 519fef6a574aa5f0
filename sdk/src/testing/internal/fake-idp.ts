// The fake ID-token issuer: the tokens `idToken()` returns, and, when the fakes have an `idpUrl`,
// the mock issuer's routes (`POST /token`, its JWK set and OIDC discovery), so an app that fetches
// its token over HTTP meets the `idp-down` drill. Private to the testing kit.
import type { HttpHandler } from 'msw';
import { apiError, jsonAnswer, notFound } from './fake-answers.js';
import { type FakeContext, serviceHandler } from './fake-context.js';
import { signJwt } from './sign-jwt.js';

/** What an ID token of the fake issuer says. */
export interface IdTokenRequest {
  sub: string;
  /** Seconds from now to `exp`; negative for a token that has already expired. */
  expiresInSeconds: number;
  email?: string;
  /** Extra claims; the standard ones (`iss`, `sub`, `aud`, `iat`, `exp`) are never replaced. */
  claims?: Record<string, unknown>;
}

/** An RS256 ID token of the fake issuer, as both fake services accept it. */
export function mintIdToken(context: FakeContext, request: IdTokenRequest): Promise<string> {
  const now = Math.floor(context.now() / 1000);
  const exp = now + request.expiresInSeconds;
  const { iss, audience } = context.issuer;
  return signJwt(
    {
      ...request.claims,
      ...(request.email === undefined ? {} : { email: request.email }),
      iss,
      sub: request.sub,
      aud: audience,
      // A token that has already expired was issued before it expired.
      iat: Math.min(now, exp - 1),
      exp,
    },
    context.pki.idp.privateKey,
    context.pki.idp.kid,
  );
}

const MAX_EXPIRES_IN_SECONDS = 365 * 86_400;

/** The body of `POST /token`, or why it is refused. */
function readTokenRequest(body: unknown): IdTokenRequest | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return 'The body must be a JSON object with sub';
  }
  const { sub, email, expiresInSeconds = 3600, claims } = body as Record<string, unknown>;
  if (typeof sub !== 'string' || sub === '') return 'sub must be a non-empty string';
  if (
    typeof expiresInSeconds !== 'number' ||
    !Number.isInteger(expiresInSeconds) ||
    expiresInSeconds < 1 ||
    expiresInSeconds > MAX_EXPIRES_IN_SECONDS
  ) {
    return `expiresInSeconds must be an integer from 1 to ${MAX_EXPIRES_IN_SECONDS}`;
  }
  if (email !== undefined && typeof email !== 'string') return 'email must be a string';
  if (claims !== undefined && (typeof claims !== 'object' || claims === null)) {
    return 'claims must be an object';
  }
  return {
    sub,
    expiresInSeconds,
    ...(email === undefined ? {} : { email }),
    ...(claims === undefined ? {} : { claims: claims as Record<string, unknown> }),
  };
}

/** The fake issuer's handlers under `base`. */
export function fakeIdpHandlers(context: FakeContext, base: string): HttpHandler[] {
  return [
    serviceHandler(base, async (request, route) => {
      const now = context.now();
      if (route === '/token' && request.method === 'POST') {
        if (!(request.headers.get('content-type') ?? '').includes('application/json')) {
          return apiError(
            415,
            'unsupported_media_type',
            'Send Content-Type: application/json',
            now,
          );
        }
        const read = readTokenRequest(await request.json().catch(() => undefined));
        if (typeof read === 'string') return apiError(400, 'invalid_request', read, now);
        return jsonAnswer({ id_token: await mintIdToken(context, read) }, now);
      }
      if (route === '/.well-known/jwks.json' && request.method === 'GET') {
        return jsonAnswer({ keys: [context.pki.idp.jwk] }, now);
      }
      if (route === '/.well-known/openid-configuration' && request.method === 'GET') {
        return jsonAnswer(
          {
            issuer: context.issuer.iss,
            jwks_uri: `${base}/.well-known/jwks.json`,
            id_token_signing_alg_values_supported: ['RS256'],
            subject_types_supported: ['public'],
            response_types_supported: ['id_token'],
          },
          now,
        );
      }
      return notFound(request, now);
    }),
  ];
}
