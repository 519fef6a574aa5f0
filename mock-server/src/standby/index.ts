import type { FastifyInstance } from 'fastify';
import { createApiKeyCheck } from '../auth/api-key.js';
import { installAuthHook } from '../auth/auth-hook.js';
import { createAuthenticator } from '../auth/authenticate.js';
import { ID_TOKEN_GRACE_SECONDS } from '../auth/id-token-grace.js';
import { ApiError } from '../errors.js';
import { installLicensingSummary } from '../licensing/licensing-summary.js';
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
import { findStandbyLease, standbyConsumerOf, standbyLeaseEvents } from './standby-events.js';

/**
 * The standby licensing service, mounted at `/standby`: management calls (`Service-ApiKey`),
 * status checks, signing keys with their certificate chains, JWKS and `/authz/.jwt`. Every lease
 * it grants, renews or releases is recorded as an event in its outbox before the answer goes out
 * (docs/decisions/0036-standby-usage-events.md). Registers the `standby` reset hook (back to the
 * initial state; signing keys and the outbox are kept).
 */
export async function standbyService(app: FastifyInstance): Promise<void> {
  const now = () => app.clock.now();
  const keys = app.signingKeys;
  const state = app.standbyState;
  const outbox = app.standbyOutbox;
  const events = app.eventStore;
  const { apiKeyHeader, signingKeyIdHeader } = app.config.wireNames;
  const apiKeyField = apiKeyHeader.toLowerCase();
  const signingKeyField = signingKeyIdHeader.toLowerCase();
  const prefix = app.prefix;
  const dormant = () =>
    new ApiError(403, 'standby_dormant', 'The standby licensing service is dormant');

  app.resets.set('standby', () => state.reset());
  addFormBodyParser(app);
  installLicensingSummary(app);
  // Route -> auth hook -> handler: every route names its access in `config.access`.
  installAuthHook(app, {
    authenticate: createAuthenticator(app, {
      realm: 'standby',
      schemes: ['IdToken', 'ServiceKeyHash'],
      graceSeconds: ID_TOKEN_GRACE_SECONDS.standby,
    }),
    management: { check: createApiKeyCheck(app.apiKey, apiKeyHeader), field: apiKeyField },
  });
  const management = { access: 'management' } as const;
  const caller = { access: 'caller' } as const;

  // A management call moves the state (after the propagation delay) and answers `true`.
  const manage = (target: 'active' | 'dormant') => async () => {
    await state.set(target);
    return true;
  };
  const enable = manage('active');
  const disable = manage('dormant');

  app.route({
    method: ['PATCH', 'POST', 'PUT'],
    url: '/enabled',
    schema: enableSchema,
    config: management,
    handler: enable,
  });

  app.get('/enabled', { schema: enabledStatusSchema, config: caller }, async () => {
    return state.current() === 'active';
  });

  app.route({
    method: ['PATCH', 'POST', 'PUT'],
    url: '/disabled',
    schema: disableSchema,
    config: management,
    handler: disable,
  });

  // GET /disabled is a management call when it carries the API key header, else a status check.
  app.get(
    '/disabled',
    { schema: disabledSchema, config: { access: 'management-or-caller' } },
    async (request) => {
      if (request.headers[apiKeyField] !== undefined) return disable();
      return state.current() === 'dormant';
    },
  );

  app.post(
    '/signing-keys',
    { schema: signingKeySchema, config: management },
    async (_request, reply) => {
      const { key, chain } = await keys.generate();
      return reply.code(201).send({
        keyId: key.kid,
        rootCertificate: chain.rootCertificate,
        signingCertificate: chain.signingCertificate,
        notBefore: chain.notBefore,
        notAfter: chain.notAfter,
      });
    },
  );

  app.get('/.well-known/jwks.json', { schema: jwksSchema, config: caller }, async () => {
    if (state.current() !== 'active') throw dormant();
    await keys.ready();
    return keys.jwks();
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/authz/.jwt',
    schema: authzSchema,
    config: caller,
    handler: async (request, reply) => {
      if (state.current() !== 'active') throw dormant();
      // A first start makes its first key on demand (or right after listening).
      if (keys.list().length === 0) await keys.ready();
      const wanted = request.headers[signingKeyField];
      let signer = keys.current;
      if (wanted !== undefined) {
        const found = typeof wanted === 'string' ? keys.get(wanted) : undefined;
        if (!found) {
          throw new ApiError(400, 'unknown_signing_key', `${signingKeyIdHeader} names no key`);
        }
        signer = found;
      }
      const issuedAt = now();
      return sendLeaseTokens(request, reply, prefix, {
        subject: request.caller!.sub,
        now: issuedAt,
        signer: signer.key,
        signingPool: app.signingPool,
        // Decided and signed: recorded (durably with a data dir) before it goes out, so a lease
        // the caller holds always has its event, and none is written twice.
        beforeSend: (parsed, claims) => {
          const consumer = standbyConsumerOf(request.caller!, issuedAt);
          const leaseEvents = standbyLeaseEvents(parsed, claims, consumer, (leaseId) =>
            findStandbyLease(outbox, events, consumer.consumer, leaseId),
          );
          return outbox.record(leaseEvents, events.lastTimestamp);
        },
      });
    },
  });
}
