import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { createFaultRegistry } from './admin/fault-registry.js';
import { adminService } from './admin/index.js';
import { contextPlugin } from './context.js';
import { apiErrorSchema, createFrameworkErrorHandler, installErrorHandling } from './errors.js';
import { eventsService } from './events/index.js';
import { corsPlugin, createCorsPolicy } from './http/cors.js';
import { addDepthCheckedJsonParser } from './http/json-body-parser.js';
import { createClientErrorHandler, installNodeAnswers } from './http/node-answers.js';
import { idpService } from './idp/index.js';
import { mainService } from './main/index.js';
import { type MockServerOptions, resolveOptions } from './options.js';
import { signingPoolPlugin } from './signing-pool-plugin.js';
import { standbyService } from './standby/index.js';

/** Base paths of the four services (DECISIONS.md "Mock server command line"). */
export const SERVICE_PREFIXES = {
  main: '/main',
  standby: '/standby',
  events: '/events',
  idp: '/idp',
} as const;

/**
 * Builds the mock server (all services on one instance) without listening, so tests can call
 * `app.inject()` or `app.listen({ port: 0 })`.
 *
 * @example
 * const app = await buildApp({ state: 'active' });
 * const res = await app.inject({ method: 'GET', url: '/idp/.well-known/jwks.json' });
 */
export async function buildApp(options: MockServerOptions = {}): Promise<FastifyInstance> {
  const config = resolveOptions(options);
  const { limits } = config;
  const cors = createCorsPolicy({ origins: config.corsOrigins, wireNames: config.wireNames });
  const app = Fastify({
    logger: options.logger ?? false,
    // Keep-alive sockets and parked long polls must not hold up shutdown.
    forceCloseConnections: true,
    // Answered by installNodeAnswers as an ApiError instead of Fastify's own 503 body.
    return503OnClosing: false,
    // A log line per request would dominate the /authz/.jwt hot path; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    clientErrorHandler: createClientErrorHandler(cors),
    frameworkErrors: createFrameworkErrorHandler((origin) => cors.headersFor(origin)),
    // No pino child logger per request: with request logging off it only costs memory (about
    // 0.6 KiB RSS per parked long poll, bench row 5). Error lines then carry no reqId.
    childLoggerFactory: (logger) => logger,
    bodyLimit: limits.maxBodyBytes,
    // The router measures decoded path segments in UTF-16 units: a code point takes at most 2.
    // Longer segments get a 400 from frameworkErrors; ids between the limit and this, a 400
    // from the route schemas (maxLength counts code points). Never Fastify's 414.
    routerOptions: { maxParamLength: limits.maxIdLength * 2 },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // No socket inactivity timeout: a parked long poll is idle by design (maxWaitMs bounds it).
    connectionTimeout: 0,
    http: {
      // Without Host, Node would answer an empty 400 itself; installNodeAnswers answers instead.
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks the two timeouts on this interval: the 408 goes out at most a sixth late.
      connectionsCheckingInterval: Math.max(50, Math.floor(limits.requestTimeoutMs / 6)),
    },
  });
  installErrorHandling(app);
  // CORS first: its hook sets the headers before any other hook can answer.
  await app.register(corsPlugin, { policy: cors });
  installNodeAnswers(app, cors);
  addDepthCheckedJsonParser(app, limits.maxJsonDepth);
  app.addSchema(apiErrorSchema);

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Standby licensing mock server',
        version: '0.1.0',
        description:
          'Standby licensing service, mock main service, ID-token issuer, event data service.',
      },
    },
  });
  await app.register(contextPlugin, { config });
  await app.register(signingPoolPlugin, { threads: config.signingThreads });

  await app.register(standbyService, { prefix: SERVICE_PREFIXES.standby });
  // Faults exist only with admin on; without it the main service adds no hook at all.
  const faults = config.admin ? createFaultRegistry() : undefined;
  await app.register(mainService, { prefix: SERVICE_PREFIXES.main, ...(faults ? { faults } : {}) });
  await app.register(idpService, { prefix: SERVICE_PREFIXES.idp });
  await app.register(eventsService, { prefix: SERVICE_PREFIXES.events });
  if (faults) await app.register(adminService, { prefix: '/admin', faults });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.ready();
  return app;
}
