import type { FastifyReply, FastifyRequest } from 'fastify';
import { type IssueLeaseTokensOptions, issueLeaseTokens } from './issue-lease-tokens.js';
import { parseAuthzRequest } from './parse-authz-request.js';
import { rawParameters, serviceBaseUrl } from './request-parameters.js';

/**
 * The shared end of both services' `/authz/.jwt`: parses the request's raw parameters, issues
 * the tokens (`iss` = the server's public base URL under `prefix`) and sends them as
 * `application/jwt`. Bad parameters reject with the parser's 400 ApiError.
 */
export async function sendLeaseTokens(
  request: FastifyRequest,
  reply: FastifyReply,
  prefix: string,
  options: Omit<IssueLeaseTokensOptions, 'issuer'>,
): Promise<FastifyReply> {
  const [query, body] = rawParameters(request);
  const limits = { maxItems: request.server.config.limits.maxItemsPerRequest };
  const tokens = await issueLeaseTokens(parseAuthzRequest(query, body, limits), {
    ...options,
    issuer: serviceBaseUrl(request, prefix),
  });
  return reply.type('application/jwt').send(tokens);
}
