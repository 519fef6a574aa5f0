import type { FastifyReply, FastifyRequest } from 'fastify';
import { type IssueLeaseTokensOptions, signLeaseClaims } from './issue-lease-tokens.js';
import { buildLeaseClaims } from './lease-claims.js';
import { summarizeLicensing } from './licensing-summary.js';
import { type AuthzRequest, parseAuthzRequest } from './parse-authz-request.js';
import { rawParameters, serviceBaseUrl } from './request-parameters.js';

/** Options of {@link sendLeaseTokens}. */
export interface SendLeaseTokensOptions extends Omit<IssueLeaseTokensOptions, 'issuer'> {
  /**
   * Runs once the answer is decided and signed, before it is sent: the standby records the
   * answer's events here. A rejection is the answer instead (nothing was granted).
   */
  beforeSend?: (request: AuthzRequest, claims: Record<string, unknown>[]) => Promise<void>;
}

/**
 * The shared end of both services' `/authz/.jwt`: parses the request's raw parameters, builds
 * the claims (`iss` = the server's public base URL under `prefix`), signs them, runs `beforeSend`
 * and sends the tokens as `application/jwt`, noting in `request.licensing` what the request was.
 * Bad parameters reject with the parser's 400 ApiError.
 */
export async function sendLeaseTokens(
  request: FastifyRequest,
  reply: FastifyReply,
  prefix: string,
  options: SendLeaseTokensOptions,
): Promise<FastifyReply> {
  const [query, body] = rawParameters(request);
  const limits = { maxItems: request.server.config.limits.maxItemsPerRequest };
  const parsed = parseAuthzRequest(query, body, limits);
  const claims = buildLeaseClaims(parsed, { ...options, issuer: serviceBaseUrl(request, prefix) });
  request.licensing = summarizeLicensing(parsed, claims);
  const tokens = await signLeaseClaims(claims, options);
  if (options.beforeSend) await options.beforeSend(parsed, claims);
  return reply.type('application/jwt').send(tokens.join('&'));
}
