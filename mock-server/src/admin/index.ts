import type { FastifyInstance } from 'fastify';
import { ID_TOKEN_GRACE_SECONDS } from '../auth/id-token-grace.js';
import { ApiError } from '../errors.js';
import { useStrictBodyValidation } from '../validation/strict-body-validation.js';
import { consoleRoutes } from './console-routes.js';
import type { FaultRegistry, FaultService, FaultSpec } from './fault-registry.js';
import {
  applyScenarioSchema,
  clearFaultsSchema,
  listFaultsSchema,
  listScenariosSchema,
  setFaultSchema,
} from './fault-schemas.js';
import { mainAdminRoutes } from './main-routes.js';
import type { MockMetrics } from './metrics.js';
import type { RequestLog } from './request-log.js';
import { isScenarioName, SCENARIOS } from './scenarios.js';
import { getClockSchema, metricsSchema, resetSchema, setClockSchema } from './schemas.js';
import { standbyAdminRoutes } from './standby-routes.js';

/** Options of {@link adminService}. */
export interface AdminServiceOptions {
  /** The registry the fault hook consults. */
  faults: FaultRegistry;
  /** The live request log the console shows (recorded by a root hook). */
  requestLog: RequestLog;
  /** The metrics `/admin/metrics` shows (counted by the same hook). */
  metrics: MockMetrics;
  /** Long polls parked now (the events service's). */
  parkedLongPolls: () => number;
}

/**
 * The admin API, mounted at `/admin` only with `config.admin`: fault injection on every service
 * and the named scenarios, reset of every service's state (or one), the clock offset, the mock main's
 * provisioning, the standby's state view, propagation delay, outbox and what it granted, the
 * QA console with its live request log, and the metrics in the Prometheus text format. Its own reset hook (`admin`) clears faults and the clock offset. Bodies are
 * validated strictly. See docs/mock-server.md.
 */
export async function adminService(
  app: FastifyInstance,
  options: AdminServiceOptions,
): Promise<void> {
  const { faults } = options;
  const clock = app.clock;
  const maxOffsetMs = app.config.limits.maxClockOffsetMs;
  useStrictBodyValidation(app);
  const clockView = () => {
    const nowMs = clock.now();
    return {
      now: new Date(nowMs).toISOString(),
      nowMs,
      offsetMs: clock.offsetMs,
      idTokenGraceSeconds: ID_TOKEN_GRACE_SECONDS,
    };
  };

  app.resets.set('admin', () => {
    faults.clear();
    clock.offsetMs = 0;
  });

  app.get('/faults', { schema: listFaultsSchema }, async () => ({
    faults: faults.list(),
    held: { ...faults.held },
    routes: faults.routes(),
  }));

  app.post<{ Body: FaultSpec }>('/faults', { schema: setFaultSchema }, async (request, reply) =>
    reply.code(201).send(faults.set(request.body)),
  );

  app.delete<{ Querystring: { service?: FaultService; route?: string } }>(
    '/faults',
    { schema: clearFaultsSchema },
    async (request) => ({ cleared: faults.clear(request.query) }),
  );

  app.get('/scenarios', { schema: listScenariosSchema }, async () => ({
    scenarios: Object.entries(SCENARIOS).map(([name, scenario]) => ({ name, ...scenario })),
  }));

  app.post<{ Params: { name: string } }>(
    '/scenarios/:name',
    { schema: applyScenarioSchema },
    async (request) => {
      const { name } = request.params;
      if (!isScenarioName(name)) {
        throw new ApiError(
          404,
          'not_found',
          `No scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`,
        );
      }
      return { scenario: name, faults: SCENARIOS[name].faults.map((spec) => faults.set(spec)) };
    },
  );

  app.post<{ Querystring: { service?: string } }>(
    '/reset',
    { schema: resetSchema },
    async (request) => {
      const { service } = request.query;
      if (service !== undefined && !app.resets.has(service)) {
        throw new ApiError(
          400,
          'invalid_request',
          `Unknown service ${service}; known: ${[...app.resets.keys()].join(', ')}`,
        );
      }
      const names = service === undefined ? [...app.resets.keys()] : [service];
      for (const name of names) await app.resets.get(name)!();
      return { reset: names };
    },
  );

  app.get('/clock', { schema: getClockSchema }, async () => clockView());

  app.put<{ Body: { offsetMs?: number; advanceMs?: number } }>(
    '/clock',
    { schema: setClockSchema(maxOffsetMs) },
    async (request) => {
      const { offsetMs, advanceMs } = request.body;
      const next = offsetMs ?? clock.offsetMs + (advanceMs ?? 0);
      if (Math.abs(next) > maxOffsetMs) {
        throw new ApiError(
          400,
          'invalid_request',
          `The clock offset would be ${next} ms; it must stay within ±${maxOffsetMs} ms`,
        );
      }
      clock.offsetMs = next;
      return clockView();
    },
  );

  const { metrics } = options;
  // Counted as they are stored, by source: main's and the standby's own, and the rest.
  const sourceLabel = (source: string) =>
    source === 'main' || source === 'standby' ? source : 'other';
  const stopCounting = app.eventStore.onCommit((events) =>
    metrics.eventsWritten(events.map((event) => sourceLabel(event.source))),
  );
  app.addHook('onClose', async () => {
    stopCounting();
  });
  app.get('/metrics', { schema: metricsSchema }, async (_request, reply) => {
    const { contentType, body } = await metrics.render({
      faultHits: () => faults.hitTotals,
      parkedLongPolls: options.parkedLongPolls,
      outboxBacklog: () => ({
        main: app.licenseBook.outbox().reduce((sum, entry) => sum + entry.events.length, 0),
        standby: app.standbyOutbox.pendingEvents,
      }),
      signingQueueDepth: () => app.signingPool.queued,
    });
    return reply.type(contentType).header('cache-control', 'no-store').send(body);
  });

  await mainAdminRoutes(app);
  await standbyAdminRoutes(app);
  await consoleRoutes(app, { requestLog: options.requestLog });
}
