import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import {
  getStandbyOutboxSchema,
  getStandbySchema,
  setPropagationDelaySchema,
  setStandbyOutboxSchema,
  standbyUsageSchema,
} from './schemas.js';

/** Waiting answers listed by `GET /admin/standby/outbox` (the count covers them all). */
const OUTBOX_LISTED = 100;

/** A `from` / `to` query value as a timestamp (ns); a 400 for a time the clock cannot hold. */
function timestampOf(value: string | undefined, name: string): bigint | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0) {
    throw new ApiError(400, 'invalid_request', `${name} is not a date-time from 1970 on: ${value}`);
  }
  return BigInt(ms) * 1_000_000n;
}

/**
 * The admin view of the standby: its state (and a change on its way), the propagation delay and
 * its signing keys, plus a setter for the delay, which the standby's own API has none for; its
 * outbox of lease events (with a hold, like main's); and what it granted, summarised as
 * `standby-licensing usage` prints it (the QA console's "What the standby granted"). State
 * changes and key rotations go through the standby's management API (`Service-ApiKey`), as an
 * operator's would.
 */
export async function standbyAdminRoutes(app: FastifyInstance): Promise<void> {
  const state = app.standbyState;
  const keys = app.signingKeys;
  const outbox = app.standbyOutbox;
  const delivery = app.standbyOutboxDelivery;
  const view = () => {
    const { state: current, pending } = state.view();
    return {
      apiKeyHeader: app.config.wireNames.apiKeyHeader,
      state: current,
      ...(pending
        ? {
            pending: {
              state: pending.state,
              effectiveAt: new Date(pending.effectiveAt).toISOString(),
            },
          }
        : {}),
      propagationDelayMs: state.propagationDelayMs,
      signingKeys: keys.list().map((k) => ({ keyId: k.key.kid, createdAt: k.createdAt })),
    };
  };
  app.get('/standby', { schema: getStandbySchema }, async () => {
    // On a first start the first signing key may still be on its way: show it once made.
    await keys.ready();
    return view();
  });
  app.put<{ Body: { propagationDelayMs: number } }>(
    '/standby/propagation-delay',
    { schema: setPropagationDelaySchema },
    async (request) => {
      state.propagationDelayMs = request.body.propagationDelayMs;
      return view();
    },
  );

  const outboxView = () => {
    const entries = outbox.outbox();
    return {
      paused: delivery.paused,
      pending: entries.length,
      pendingEvents: outbox.pendingEvents,
      entries: entries.slice(0, OUTBOX_LISTED),
    };
  };
  app.get('/standby/outbox', { schema: getStandbyOutboxSchema }, async () => outboxView());
  app.put<{ Body: { paused: boolean } }>(
    '/standby/outbox',
    { schema: setStandbyOutboxSchema },
    async (request) => {
      delivery.setPaused(request.body.paused);
      return outboxView();
    },
  );

  app.get<{ Querystring: { from?: string; to?: string } }>(
    '/standby/usage',
    { schema: standbyUsageSchema },
    async (request) =>
      app.standbyUsage({
        from: timestampOf(request.query.from, 'from'),
        to: timestampOf(request.query.to, 'to'),
      }),
  );
}
