import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../http/api-error.js';
import type { CorsPolicy } from '../http/cors.js';

/** Options of {@link corsPlugin}. */
export interface CorsPluginOptions {
  policy: CorsPolicy;
}

/**
 * Adds the CORS headers of `policy` to every answer the routes give (fault answers and errors
 * included: they are set before any other hook runs) and answers every preflight: `OPTIONS` on
 * any path, known or not, is 204 with the allowed methods, headers and max age; from an origin
 * that is not allowed it is 403 ApiError `origin_not_allowed` without any grant. Under `/admin`
 * (admin API on) a request from another site or for another host is 403 ApiError `forbidden`
 * without any grant, preflights included. Register it on the root instance before the services.
 * See docs/decisions/0006-cors-plugin.md.
 */
export const corsPlugin = fp(
  async (app: FastifyInstance, options: CorsPluginOptions) => {
    const { policy } = options;
    app.addHook('onRequest', async (request, reply) => {
      // The admin API refuses other sites before anything of the request runs, with no grant.
      const refusal = policy.refuseAdmin(request);
      if (refusal) {
        reply.header('vary', 'Origin');
        throw refusal;
      }
      reply.headers(policy.headersFor(request.headers.origin, request.url));
    });
    app.options('*', { schema: { hide: true } }, async (request, reply) => {
      const { origin } = request.headers;
      if (origin !== undefined && !policy.allows(origin, request.url)) {
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
