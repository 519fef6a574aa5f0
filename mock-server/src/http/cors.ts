import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';
import type { WireNames } from '../options.js';

/** How long a browser may cache a preflight answer, in seconds (DECISIONS.md "Browsers"). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Methods a preflight allows. */
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/** Response headers a cross-origin page may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = 'Retry-After, WWW-Authenticate';

/** Options of {@link createCorsPolicy}. */
export interface CorsPolicyOptions {
  /** Allowed origins; undefined allows any origin. */
  origins: ReadonlySet<string> | undefined;
  /** The wire names of the two vendor headers a browser may send. */
  wireNames: Pick<WireNames, 'apiKeyHeader' | 'signingKeyIdHeader'>;
}

/**
 * Which CORS headers an answer carries. One policy serves the routes, the preflights, the
 * framework's own answers (bad URLs) and the answers written straight to the socket (requests
 * Node cannot parse, request timeouts, `CONNECT`), so every answer of the server agrees.
 */
export interface CorsPolicy {
  /** Whether a page from `origin` may read answers (any origin unless a list was given). */
  allows(origin: string): boolean;
  /**
   * Headers for an answer to a request with this `Origin` header (undefined: none sent):
   * `Vary: Origin` always; `Access-Control-Allow-Origin` (the origin itself, or `*` for a request
   * without one when any origin is allowed) and `Access-Control-Expose-Headers` when allowed.
   */
  headersFor(origin: string | undefined): Record<string, string>;
  /** Extra headers of a preflight answer: allowed methods and headers, max age. */
  readonly preflightHeaders: Readonly<Record<string, string>>;
}

/**
 * Creates the CORS policy of the server.
 *
 * @example
 * const cors = createCorsPolicy({ origins: undefined, wireNames: DEFAULT_WIRE_NAMES });
 * reply.headers(cors.headersFor(request.headers.origin));
 */
export function createCorsPolicy(options: CorsPolicyOptions): CorsPolicy {
  const { origins, wireNames } = options;
  const allows = (origin: string) => origins === undefined || origins.has(origin);
  const preflightHeaders = Object.freeze({
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': [
      'Authorization',
      'Content-Type',
      'Accept',
      wireNames.apiKeyHeader,
      wireNames.signingKeyIdHeader,
    ].join(', '),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  });
  return {
    allows,
    preflightHeaders,
    headersFor(origin) {
      const granted = origin === undefined ? (origins === undefined ? '*' : undefined) : origin;
      if (granted === undefined || (origin !== undefined && !allows(origin))) {
        return { vary: 'Origin' };
      }
      return {
        vary: 'Origin',
        'access-control-allow-origin': granted,
        'access-control-expose-headers': EXPOSED_HEADERS,
      };
    },
  };
}

/** Options of {@link corsPlugin}. */
export interface CorsPluginOptions {
  policy: CorsPolicy;
}

/**
 * Adds the CORS headers of `policy` to every answer the routes give (fault answers and errors
 * included: they are set before any other hook runs) and answers every preflight: `OPTIONS` on
 * any path, known or not, is 204 with the allowed methods, headers and max age; from an origin
 * that is not allowed it is 403 ApiError `origin_not_allowed` without any grant. Register it on
 * the root instance before the services. See docs/decisions/0006-cors-plugin.md.
 */
export const corsPlugin = fp(
  async (app: FastifyInstance, options: CorsPluginOptions) => {
    const { policy } = options;
    app.addHook('onRequest', async (request, reply) => {
      reply.headers(policy.headersFor(request.headers.origin));
    });
    app.options('*', { schema: { hide: true } }, async (request, reply) => {
      const { origin } = request.headers;
      if (origin !== undefined && !policy.allows(origin)) {
        throw new ApiError(
          403,
          'origin_not_allowed',
          `Origin ${origin} may not call this server (see --cors-origin)`,
        );
      }
      reply.headers(policy.preflightHeaders);
      // Chrome's Private Network Access: a public page calling a mock on localhost asks first.
      if (request.headers['access-control-request-private-network'] === 'true') {
        reply.header('access-control-allow-private-network', 'true');
      }
      return reply.code(204).send();
    });
  },
  { name: 'cors', fastify: '5.x' },
);
