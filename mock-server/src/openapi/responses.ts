/**
 * Building blocks of the OpenAPI description that the services' `schemas.ts` share
 * (docs/conformance.md "OpenAPI conventions"): security requirements, ApiError answers by
 * reference, and the response headers that go with them.
 */

/** `$ref` to the ApiError body (`app.addSchema(apiErrorSchema)`; `#/components/schemas/ApiError`). */
export const apiErrorRef = { $ref: 'ApiError#' } as const;

/** Names of the security schemes in `components.securitySchemes`. */
export const SECURITY_SCHEMES = {
  idToken: 'IdToken',
  bearer: 'Bearer',
  serviceKeyHash: 'ServiceKeyHash',
  apiKey: 'Service-ApiKey',
} as const;

/** Security requirements of the routes: any one entry of an array satisfies it. */
export const SECURITY = {
  /** No credentials (`security: []`). */
  public: [],
  /** The standby's `Authorization`: an ID token or the main key's hash. */
  standbyCaller: [{ [SECURITY_SCHEMES.idToken]: [] }, { [SECURITY_SCHEMES.serviceKeyHash]: [] }],
  /** Main's `Authorization`: an ID token (IdToken or Bearer) or the main key's hash. */
  mainCaller: [
    { [SECURITY_SCHEMES.idToken]: [] },
    { [SECURITY_SCHEMES.bearer]: [] },
    { [SECURITY_SCHEMES.serviceKeyHash]: [] },
  ],
  /** An end user's ID token only (main checkout). */
  user: [{ [SECURITY_SCHEMES.idToken]: [] }, { [SECURITY_SCHEMES.bearer]: [] }],
  /** The standby's management API key. */
  management: [{ [SECURITY_SCHEMES.apiKey]: [] }],
  /** GET /standby/disabled: the management key, or a caller's `Authorization`. */
  managementOrStandbyCaller: [
    { [SECURITY_SCHEMES.apiKey]: [] },
    { [SECURITY_SCHEMES.idToken]: [] },
    { [SECURITY_SCHEMES.serviceKeyHash]: [] },
  ],
  /** An event read JWT (`Authorization: Bearer`). */
  eventReader: [{ [SECURITY_SCHEMES.bearer]: [] }],
} as const;

/** A response header as `@fastify/swagger` reads it (`description` moves up from the schema). */
export interface HeaderSchema {
  type: 'string' | 'integer';
  description: string;
}

/** `WWW-Authenticate` of a 401 from a service's `Authorization` check. */
export const challengeHeader = {
  'WWW-Authenticate': {
    type: 'string',
    description:
      'The schemes the service accepts, each with its realm, e.g. `IdToken realm="standby", ServiceKeyHash realm="standby"`',
  },
} as const satisfies Record<string, HeaderSchema>;

/** `Retry-After` (seconds) of an answer that says when to try again. */
export const retryAfterHeader = {
  'Retry-After': { type: 'integer', description: 'Seconds to wait before trying again' },
} as const satisfies Record<string, HeaderSchema>;

/**
 * A response whose body is an ApiError (`application/json`), with its meaning and the headers it
 * carries.
 *
 * @example
 * response: { 403: errorResponse('`standby_dormant`: the standby is dormant') }
 */
export function errorResponse<const H extends Record<string, HeaderSchema>>(
  description: string,
  headers?: H,
) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: apiErrorRef } },
  } as const;
}

/** 401 of a service's `Authorization` check: `unauthorized` or `invalid_token`, with the challenge. */
export const unauthorizedResponse = errorResponse(
  '`unauthorized` (no `Authorization`) or `invalid_token`, with `WWW-Authenticate` naming the schemes',
  challengeHeader,
);

/** 401 of the management key check: `invalid_api_key`, without a challenge. */
export const invalidApiKeyResponse = errorResponse(
  '`invalid_api_key`: the management key header is missing or wrong',
);

/** 400 of a request the route's schema or parser refuses. */
export const invalidRequestResponse = errorResponse(
  '`invalid_request`: a parameter, header or body the route refuses',
);
