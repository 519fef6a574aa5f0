import type { FastifyInstance } from 'fastify';
import { toPublicJwk } from '../crypto/jwk.js';
import { signCompactJws } from '../crypto/jws.js';
import { useStrictBodyValidation } from '../validation/strict-body-validation.js';
import { discoverySchema, jwksSchema, tokenRequestSchema } from './schemas.js';

interface TokenRequest {
  sub: string;
  email?: string;
  aud?: string | string[];
  expiresInSeconds?: number;
  claims?: Record<string, unknown>;
}

/**
 * The built-in ID-token issuer, mounted at `/idp`: discovery, JWKS and `POST /token`. The token
 * endpoint also takes extra `claims`, so the same key mints event-feed read JWTs
 * (`{ "claims": { "*": true } }`) for a server started without `--event-reader-key`.
 */
export async function idpService(app: FastifyInstance): Promise<void> {
  useStrictBodyValidation(app);
  app.get('/.well-known/openid-configuration', { schema: discoverySchema }, async () => {
    const issuer = app.config.issuer;
    return {
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      token_endpoint: `${issuer}/token`,
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
      response_types_supported: ['id_token'],
    };
  });

  // The issuer key is made on first use when the data dir holds none (or right after listening).
  const issuerKey = () => app.keyring.peek('issuer') ?? app.keyring.get('issuer');
  app.get('/.well-known/jwks.json', { schema: jwksSchema }, async () => ({
    keys: [toPublicJwk(await issuerKey())],
  }));

  app.post<{ Body: TokenRequest }>('/token', { schema: tokenRequestSchema }, async (request) => {
    const { sub, email, aud, expiresInSeconds = 3600, claims } = request.body;
    const issuer = await issuerKey();
    const iat = Math.floor(app.clock.now() / 1000);
    const payload = {
      ...claims,
      iss: app.config.issuer,
      sub,
      aud: aud ?? [app.config.clientId],
      iat,
      exp: iat + expiresInSeconds,
      ...(email !== undefined ? { email } : {}),
    };
    const header = { alg: 'RS256', kid: issuer.kid, typ: 'JWT' };
    return { id_token: signCompactJws(header, payload, issuer.privateKey) };
  });
}
