import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { RequestLog, RequestLogEntry } from './request-log.js';
import { createRequestStreams } from './request-stream.js';
import { consoleAssetSchema, listRequestsSchema, requestStreamSchema } from './schemas.js';

/**
 * The console's files: shipped as they are (no build step), next to this module in the sources
 * (`src/admin/console/`) and next to the bundle in the package (`dist/console/`).
 */
const CONSOLE_FOLDER = new URL('./console/', import.meta.url);

/** The files, the path each is served at (under `/admin`), and its media type. */
const ASSETS = [
  ['console.html', '/console', 'text/html; charset=utf-8', 'the page'],
  ['console.js', '/console.js', 'text/javascript; charset=utf-8', 'its script'],
  ['console.css', '/console.css', 'text/css; charset=utf-8', 'its style sheet'],
] as const;

/** Everything the page loads comes from this server; nothing inline, no frames. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The journal's filters (`GET /admin/requests`). */
interface JournalQuery {
  after?: number;
  service?: string;
  method?: string;
  /** A prefix of the path under the service's base. */
  path?: string;
  status?: number;
  kind?: string;
}

/** The entries a journal query keeps: every filter given must match. */
function journalFilter(query: Omit<JournalQuery, 'after'>): (entry: RequestLogEntry) => boolean {
  const { service, method, path, status, kind } = query;
  return (entry) =>
    (service === undefined || entry.service === service) &&
    (method === undefined || entry.method === method) &&
    (path === undefined || entry.path.startsWith(path)) &&
    (status === undefined || entry.status === status) &&
    (kind === undefined || entry.kind === kind);
}

/** Options of {@link consoleRoutes}. */
export interface ConsoleRoutesOptions {
  requestLog: RequestLog;
}

/**
 * The QA console (`GET /admin/console`, a static page with its script and style sheet, read once
 * at start) and the live request log it shows: `GET /admin/requests` (JSON, every kept entry or
 * those after `?after=`, filtered by `service`, `method`, `path` prefix and `status`, with their
 * `count`) and `GET /admin/requests/stream` (server-sent events). Open streams end when the
 * server closes.
 */
export async function consoleRoutes(
  app: FastifyInstance,
  options: ConsoleRoutesOptions,
): Promise<void> {
  const { requestLog } = options;
  const files = await Promise.all(
    ASSETS.map(async ([file]) => {
      const url = new URL(file, CONSOLE_FOLDER);
      try {
        return await readFile(url);
      } catch (cause) {
        throw new Error(`The QA console file ${url.pathname} is missing from the package`, {
          cause,
        });
      }
    }),
  );
  ASSETS.forEach(([, path, type, what], i) => {
    const body = files[i]!;
    app.get(path, { schema: consoleAssetSchema(what, path, type) }, async (_request, reply) => {
      reply
        .type(type)
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer');
      if (path === '/console') reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      return reply.send(body);
    });
  });

  const streams = createRequestStreams();
  app.get<{ Querystring: JournalQuery }>(
    '/requests',
    { schema: listRequestsSchema },
    async (request) => {
      const { after = 0, ...filter } = request.query;
      const { entries, dropped } = requestLog.find(
        Math.min(after, requestLog.lastSeq),
        journalFilter(filter),
      );
      return {
        count: entries.length,
        entries,
        dropped,
        lastSeq: requestLog.lastSeq,
        readers: streams.size,
      };
    },
  );

  app.get('/requests/stream', { schema: requestStreamSchema }, (request, reply) =>
    streams.open(request, reply, requestLog),
  );
  // Before the server waits for its connections: an open stream never ends by itself.
  app.addHook('preClose', async () => streams.endAll());
}
