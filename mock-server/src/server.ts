import type { FastifyInstance } from 'fastify';
import { buildAppDeferringKeys, SERVICE_PREFIXES } from './app.js';
import type { MockServerOptions } from './config/options.js';

/** How long after listening the keys not asked for yet start to be made, in ms. */
const WARM_UP_DELAY_MS = 250;

/**
 * Options of {@link startServer}: the app's options (`tls: { cert, key }` for HTTPS) plus where
 * to listen.
 */
export interface StartServerOptions extends MockServerOptions {
  /** Port; `0` picks a free one. Default 8787. */
  port?: number;
  /** Host to bind. Default `'127.0.0.1'`. */
  host?: string;
}

/**
 * Absolute base URLs of a running mock server (under `publicUrl` when one was given, else the
 * listening URL), plus its management API key.
 */
export interface ServerInfo {
  mainUrl: string;
  standbyUrl: string;
  eventUrl: string;
  idpUrl: string;
  apiKey: string;
}

/** A listening mock server. */
export interface RunningServer {
  app: FastifyInstance;
  info: ServerInfo;
  /** Stops listening, releases parked long polls and closes stores. */
  close(): Promise<void>;
}

/**
 * Builds and starts the mock server. It listens before its keys are made (unless the data dir
 * holds them): they are made right after, and a request that needs one waits for it.
 *
 * @example
 * const server = await startServer({ port: 0, state: 'active' });
 * console.log(server.info.standbyUrl); // http://127.0.0.1:<port>/standby
 * // Over HTTPS (PEM texts): the URLs are then https://
 * const secure = await startServer({ port: 0, tls: { cert, key } });
 * await server.close();
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const { port = 8787, host = '127.0.0.1', ...appOptions } = options;
  const app = await buildAppDeferringKeys(appOptions);
  await app.listen({ port, host });
  // Keys the data dir does not hold are made in the background, a moment after listening, so
  // the first requests have the cores to themselves (cold start within 0.5 s, docs/mock-server.md
  // "Cold start"); a request that needs a key sooner makes it at once and waits for it. The
  // signing threads start after the keys.
  const warm = setTimeout(() => {
    // Closed meanwhile (through `app.close()`): nothing to make any more.
    if (!app.server.listening) return;
    app.deferredKeys
      .makeAll()
      .catch((err: unknown) => {
        app.log.error(
          { err },
          'making the server keys failed; the routes that need them try again',
        );
      })
      .then(() => app.signingPool.start())
      .catch((err: unknown) => app.log.error({ err }, 'the signing threads did not start'));
  }, WARM_UP_DELAY_MS);
  warm.unref();
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const scheme = app.config.tls ? 'https' : 'http';
  const origin = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
  const { config } = app;
  if (!config.publicUrlExplicit) config.publicUrl = origin;
  if (!config.issuerExplicit) config.issuer = `${config.publicUrl}${SERVICE_PREFIXES.idp}`;
  const info: ServerInfo = {
    mainUrl: `${config.publicUrl}${SERVICE_PREFIXES.main}`,
    standbyUrl: `${config.publicUrl}${SERVICE_PREFIXES.standby}`,
    eventUrl: `${config.publicUrl}${SERVICE_PREFIXES.events}`,
    idpUrl: `${config.publicUrl}${SERVICE_PREFIXES.idp}`,
    apiKey: app.apiKey,
  };
  return {
    app,
    info,
    close: () => {
      clearTimeout(warm);
      return app.close();
    },
  };
}
