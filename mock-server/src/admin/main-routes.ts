import { LEASE_CLAIM_NAMES, RESERVED_PARAMETERS } from '@standby-licensing/wire';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/api-error.js';
import {
  blockCodeSchema,
  getOutboxSchema,
  listBlockedCodesSchema,
  listLicensesSchema,
  provisionSchema,
  revokeSchema,
  setOutboxSchema,
  unblockCodeSchema,
} from './schemas.js';

/** Waiting changes listed by `GET /admin/main/outbox` (the count covers them all). */
const OUTBOX_LISTED = 100;

/**
 * The admin routes of the mock main's provisioning (docs/mock-server.md "Main provisioning
 * and its events"): licenses per user, revocation, activation-code blocks, and main's outbox of
 * events. Each change is stored with its events before it is answered; the events reach the
 * event service right after (docs/decisions/0021-main-event-outbox.md). Register inside the admin
 * plugin, after `useStrictBodyValidation`.
 */
export async function mainAdminRoutes(app: FastifyInstance): Promise<void> {
  const book = app.licenseBook;
  const outbox = app.mainOutbox;
  // An item must be requestable: /authz/.jwt reads reserved names as parameters, and a claim
  // name would be overwritten in the token.
  const itemNameRules = {
    not: { enum: [...new Set([...LEASE_CLAIM_NAMES, ...RESERVED_PARAMETERS])] },
  };

  app.post<{ Body: { sub: string; item: string; activationCode?: string } }>(
    '/main/licenses',
    { schema: provisionSchema(itemNameRules) },
    async (request, reply) => reply.code(201).send(await book.provision(request.body)),
  );

  app.get<{ Querystring: { sub?: string } }>(
    '/main/licenses',
    { schema: listLicensesSchema },
    async (request) => book.list(request.query.sub),
  );

  app.delete<{ Params: { licenseId: string } }>(
    '/main/licenses/:licenseId',
    { schema: revokeSchema },
    async (request, reply) => {
      const revoked = await book.revoke(request.params.licenseId);
      if (!revoked) {
        throw new ApiError(404, 'not_found', `No license ${request.params.licenseId}`);
      }
      return reply.code(204).send();
    },
  );

  app.get('/main/activation-codes', { schema: listBlockedCodesSchema }, async () =>
    book.blockedCodes(),
  );

  app.post<{ Params: { code: string } }>(
    '/main/activation-codes/:code/block',
    { schema: blockCodeSchema },
    async (request, reply) => {
      await book.block(request.params.code);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { code: string } }>(
    '/main/activation-codes/:code/unblock',
    { schema: unblockCodeSchema },
    async (request, reply) => {
      await book.unblock(request.params.code);
      return reply.code(204).send();
    },
  );

  const outboxView = () => {
    const entries = book.outbox();
    return {
      paused: outbox.paused,
      pending: entries.length,
      entries: entries.slice(0, OUTBOX_LISTED),
    };
  };
  app.get('/main/outbox', { schema: getOutboxSchema }, async () => outboxView());
  app.put<{ Body: { paused: boolean } }>(
    '/main/outbox',
    { schema: setOutboxSchema },
    async (request) => {
      outbox.setPaused(request.body.paused);
      return outboxView();
    },
  );
}
