import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createApiKeyCheck } from '../auth/api-key.js';
import { createAuthenticator } from '../auth/authenticate.js';
import { ApiError } from '../errors.js';
import { addFormBodyParser } from '../licensing/request-parameters.js';
import { sendLeaseTokens } from '../licensing/send-lease-tokens.js';
import {
  authzSchema,
  disabledSchema,
  disableSchema,
  enabledStatusSchema,
  enableSchema,
  jwksSchema,
  signingKeySchema,
} from './schemas.js';
import { loadSigningKeyRing } from './signing-keys.js';
import { loadStandbyState } from './standby-state.js';

/** ID tokens stay acceptable on the standby for 24 h after `exp`. */
const ID_TOKEN_GRACE_SECONDS = 86_400;

/**
 * The standby licensing service, mounted at `/standby`: management calls (`Service-ApiKey`),
 * status checks, signing keys with their certificate chains, JWKS and `/authz/.jwt`.
 * Registers the `standby` reset hook (back to the initial state; signing keys are kept).
 */
export async function standbyService(app: FastifyInstance): Promise<void> {
  const now = () => app.clock.now();
  const [keys, state] = await Promise.all([
    loadSigningKeyRing(app.store, now),
    loadStandbyState(app.store, {
      initial: app.config.state,
      propagationDelayMs: app.config.propagationDelayMs,
      now,
    }),
  ]);
  const { apiKeyHeader, signingKeyIdHeader } = app.config.wireNames;
  const apiKeyField = apiKeyHeader.toLowerCase();
  const signingKeyField = signingKeyIdHeader.toLowerCase();
  const checkApiKey = createApiKeyCheck(app.apiKey, apiKeyHeader);
  const authenticate = createAuthenticator(app, {
    realm: 'standby',
    schemes: ['IdToken', 'ServiceKeyHash'],
    graceSeconds: ID_TOKEN_GRACE_SECONDS,
  });
  const prefix = app.prefix;
  const dormant = () =>
    new ApiError(403, 'standby_dormant', 'The standby licensing service is dormant');

  app.resets.set('standby', () => state.reset());
  addFormBodyParser(app);

  // A management call moves the state (after the propagation delay) and answers `true`.
  const manage = (target: 'active' | 'dormant') => async (request: FastifyRequest) => {
    checkApiKey(request.headers[apiKeyField]);
    await state.set(target);
    return true;
  };
  const enable = manage('active');
  const disable = manage('dormant');

  app.route({
    method: ['PATCH', 'POST', 'PUT'],
    url: '/enabled',
    schema: enableSchema,
    handler: enable,
  });

  app.get('/enabled', { schema: enabledStatusSchema }, async (request) => {
    authenticate(request);
    return state.current() === 'active';
  });

  app.route({
    method: ['PATCH', 'POST', 'PUT'],
    url: '/disabled',
    schema: disableSchema,
    handler: disable,
  });

  // GET /disabled is a management call when it carries the API key header, else a status check.
  app.get('/disabled', { schema: disabledSchema }, async (request) => {
    if (request.headers[apiKeyField] !== undefined) return disable(request);
    authenticate(request);
    return state.current() === 'dormant';
  });

  app.post('/signing-keys', { schema: signingKeySchema }, async (request, reply) => {
    checkApiKey(request.headers[apiKeyField]);
    const { key, chain } = await keys.generate();
    return reply.code(201).send({
      keyId: key.kid,
      rootCertificate: chain.rootCertificate,
      signingCertificate: chain.signingCertificate,
      notBefore: chain.notBefore,
      notAfter: chain.notAfter,
    });
  });

  app.get('/.well-known/jwks.json', { schema: jwksSchema }, async (request) => {
    authenticate(request);
    if (state.current() !== 'active') throw dormant();
    return keys.jwks();
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/authz/.jwt',
    schema: authzSchema,
    handler: (request, reply) => {
      const caller = authenticate(request);
      if (state.current() !== 'active') throw dormant();
      const wanted = request.headers[signingKeyField];
      let signer = keys.current;
      if (wanted !== undefined) {
        const found = typeof wanted === 'string' ? keys.get(wanted) : undefined;
        if (!found) {
          throw new ApiError(400, 'unknown_signing_key', `${signingKeyIdHeader} names no key`);
        }
        signer = found;
      }
      return sendLeaseTokens(request, reply, prefix, {
        subject: caller.sub,
        now: now(),
        signer: signer.key,
      });
    },
  });
}
