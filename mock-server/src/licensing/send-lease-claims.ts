import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { buildLeaseClaims, type LeaseClaimsOptions } from './lease-claims.js';
import { summarizeLicensing } from './licensing-summary.js';
import { parseAuthzRequest } from './parse-authz-request.js';
import { rawParameters, serviceBaseUrl } from './request-parameters.js';

/**
 * The end of main's `/authz/.json`: the parameters of `/authz/.jwt`, answered with the claims
 * object the token would carry, as `application/json` (docs/protocol.md "The main service"): for a
 * release `{ "<leaseId>": true, iss, sub, iat, exp }`, for a consume of one item that item's
 * claims. More than one item is 400 `invalid_request`: the JSON form carries one.
 */
export function sendLeaseClaims(
  request: FastifyRequest,
  reply: FastifyReply,
  prefix: string,
  options: Omit<LeaseClaimsOptions, 'issuer'>,
): FastifyReply {
  const [query, body] = rawParameters(request);
  const limits = { maxItems: request.server.config.limits.maxItemsPerRequest };
  const parsed = parseAuthzRequest(query, body, limits);
  if (!parsed.release && parsed.items.length > 1) {
    throw new ApiError(
      400,
      'invalid_request',
      `The JSON form answers one item and this request names ${parsed.items.length}; use /authz/.jwt for several`,
    );
  }
  const claims = buildLeaseClaims(parsed, {
    ...options,
    issuer: serviceBaseUrl(request, prefix),
  });
  request.licensing = summarizeLicensing(parsed, claims);
  return reply.type('application/json').send(claims[0]);
}
