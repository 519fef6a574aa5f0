import type { FastifyInstance } from 'fastify';
import { getStandbySchema, setPropagationDelaySchema } from './schemas.js';

/**
 * The admin view of the standby: its state (and a change on its way), the propagation delay and
 * its signing keys, plus a setter for the delay, which the standby's own API has none for. State
 * changes and key rotations go through the standby's management API (`Service-ApiKey`), as an
 * operator's would.
 */
export async function standbyAdminRoutes(app: FastifyInstance): Promise<void> {
  const state = app.standbyState;
  const keys = app.signingKeys;
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
}
