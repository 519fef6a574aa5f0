import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { installFaults } from './admin/fault-hook.js';
import { createFaultRegistry, type FaultRegistry } from './admin/fault-registry.js';
import { adminService } from './admin/index.js';
import { createMetrics, type MockMetrics } from './admin/metrics.js';
import { RequestLog } from './admin/request-log.js';
import { createRequestLogHook, recordUnanswered } from './admin/request-log-hook.js';
import { contextPlugin } from './context.js';
import { apiErrorSchema, createFrameworkErrorHandler, installErrorHandling } from './errors.js';
import { eventsService, getEventsInternals } from './events/index.js';
import { type CorsPolicy, corsPlugin, createCorsPolicy } from './http/cors.js';
import { addDepthCheckedJsonParser } from './http/json-body-parser.js';
import {
  createLazySchemaCompilers,
  type LazySchemaCompilers,
} from './http/lazy-schema-compilers.js';
import {
  createClientErrorHandler,
  installBodyDrain,
  installNodeAnswers,
} from './http/node-answers.js';
import { idpService } from './idp/index.js';
import { mainService } from './main/index.js';
import { mainLicensingPlugin } from './main/main-licensing-plugin.js';
import { createSwaggerOptions, finishOpenApiDocument } from './openapi/document.js';
import { type MockServerOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { signingPoolPlugin } from './signing-pool-plugin.js';
import { standbyService } from './standby/index.js';
import { standbyPlugin } from './standby/standby-plugin.js';
import { eventStorePlugin } from './store/event-store-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The schema compilers, compiling each route's schemas on first use. */
    schemaCompilers: LazySchemaCompilers;
  }
}

/** Base paths of the four services: each service's routes sit under its base. */
export const SERVICE_PREFIXES = {
  main: '/main',
  standby: '/standby',
  events: '/events',
  idp: '/idp',
} as const;

/**
 * Builds the mock server (all services on one instance) without listening, so tests can call
 * `app.inject()` or `app.listen({ port: 0 })`. It resolves with every key made (loaded from the
 * data dir, or generated); `startServer` instead listens first and makes them right after.
 *
 * @example
 * const app = await buildApp({ state: 'active' });
 * const res = await app.inject({ method: 'GET', url: '/idp/.well-known/jwks.json' });
 */
export async function buildApp(options: MockServerOptions = {}): Promise<FastifyInstance> {
  const app = await buildAppDeferringKeys(options);
  try {
    app.schemaCompilers.compileAll();
    await app.deferredKeys.makeAll();
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }
  return app;
}

/**
 * {@link buildApp} without making the keys the data dir does not hold (made on first use, or by
 * `app.deferredKeys.makeAll()`) and without compiling the routes' schemas (each on first use, or
 * by `app.schemaCompilers.compileAll()`). Key generation (about a second of CPU for the five RSA
 * keys of a first start) and schema compilation thus stay off the start path of `startServer`.
 */
export async function buildAppDeferringKeys(
  options: MockServerOptions = {},
): Promise<FastifyInstance> {
  const config = resolveOptions(options);
  const { limits } = config;
  const cors = createCorsPolicy({
    origins: config.corsOrigins,
    wireNames: config.wireNames,
    // The admin API is not open to other sites (docs/mock-server.md "Admin lockdown").
    ...(config.admin
      ? { admin: { allowedHosts: config.allowedHosts, publicUrl: () => config.publicUrl } }
      : {}),
  });
  const schemaCompilers = createLazySchemaCompilers();
  const serverOptions = {
    // Without Host, Node would answer an empty 400 itself; installNodeAnswers answers instead.
    requireHostHeader: false,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks the two timeouts on this interval: the 408 goes out at most a sixth late.
    connectionsCheckingInterval: Math.max(50, Math.floor(limits.requestTimeoutMs / 6)),
  };
  const app = Fastify({
    // Schemas compile on first use, off the start path (buildApp compiles them all at once).
    schemaController: schemaCompilers.schemaController,
    logger: options.logger ?? false,
    // Keep-alive sockets and parked long polls must not hold up shutdown.
    forceCloseConnections: true,
    // Answered by installNodeAnswers as an ApiError instead of Fastify's own 503 body.
    return503OnClosing: false,
    // A log line per request would dominate the /authz/.jwt hot path; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    clientErrorHandler: createClientErrorHandler(cors),
    frameworkErrors: createFrameworkErrorHandler((origin, url) => cors.headersFor(origin, url)),
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
    // The same server options over TLS when `tls` is given (Fastify reads `https` instead).
    ...(config.tls ? { https: { ...serverOptions, ...config.tls } } : { http: serverOptions }),
  }) as unknown as FastifyInstance;
  app.decorate('schemaCompilers', schemaCompilers);
  try {
    await registerEverything(app, config, cors);
    await app.ready();
  } catch (err) {
    // A damaged data file stops the start: release what the plugins loaded so far opened
    // (the event log's file handle, above all).
    await app.close().catch(() => undefined);
    throw err;
  }
  return app;
}

/** Installs the hooks and registers every plugin and service on `app`. */
async function registerEverything(
  app: FastifyInstance,
  config: ResolvedOptions,
  cors: CorsPolicy,
): Promise<void> {
  installErrorHandling(app);
  // CORS first: its hook sets the headers before any other hook can answer.
  await app.register(corsPlugin, { policy: cors });
  installNodeAnswers(app, cors);
  // A refused body is read to its end (up to 16 bodies' worth) so its client reads the refusal.
  installBodyDrain(app, Math.max(16 * config.limits.maxBodyBytes, 16 * 1024 * 1024));
  addDepthCheckedJsonParser(app, config.limits.maxJsonDepth);
  app.addSchema(apiErrorSchema);

  await app.register(swagger, createSwaggerOptions(config.wireNames));
  await app.register(contextPlugin, { config });
  await app.register(signingPoolPlugin, { threads: config.signingThreads });
  // Shared state: the services answer from it, the admin API shows and changes it.
  await app.register(eventStorePlugin);
  await app.register(standbyPlugin);
  await app.register(mainLicensingPlugin);

  // Faults and the request log exist only with admin on; without it no hook at all.
  let admin: { faults: FaultRegistry; requestLog: RequestLog; metrics: MockMetrics } | undefined;
  if (config.admin) {
    const requestLog = new RequestLog();
    // prom-client loads on the first request counted, never on the start path.
    const metrics = createMetrics();
    // Answers are logged by the hook; requests a fault leaves unanswered, by the fault hook.
    const faults = createFaultRegistry({
      prefixes: SERVICE_PREFIXES,
      onUnanswered: (request, reply, outcome) =>
        recordUnanswered(requestLog, request, reply, outcome, metrics),
    });
    admin = { faults, requestLog, metrics };
    app.addHook('onResponse', createRequestLogHook(requestLog, metrics));
    // Before the services: it learns their routes and answers before any of their hooks.
    installFaults(app, faults);
  }

  await app.register(standbyService, { prefix: SERVICE_PREFIXES.standby });
  await app.register(mainService, { prefix: SERVICE_PREFIXES.main });
  await app.register(idpService, { prefix: SERVICE_PREFIXES.idp });
  await app.register(eventsService, { prefix: SERVICE_PREFIXES.events });
  if (admin) {
    await app.register(adminService, {
      prefix: '/admin',
      ...admin,
      parkedLongPolls: () => getEventsInternals(app)?.waiters.size ?? 0,
    });
  }

  // Built once, on the first request.
  let openapi: Record<string, unknown> | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async () => {
    openapi ??= finishOpenApiDocument(app.swagger(), {
      // Faults reach main's routes only (admin/fault-hook.ts).
      faultable: (path) => admin !== undefined && path.startsWith(`${SERVICE_PREFIXES.main}/`),
    });
    return openapi;
  });
}
