import {
  errorResponse,
  invalidRequestResponse,
  unauthorizedResponse,
} from '../openapi/responses.js';

/** Query parameters of `/authz/.jwt`, described for OpenAPI (items are free-form names). */
export const authzQuerySchema = {
  type: 'object',
  additionalProperties: true,
  description:
    'Licensed items are bare parameter names (`ItemA`, `ItemA=`, `ItemA=;licenseId=L1;leaseId=J1`); ' +
    'the names below are reserved. A POST may carry the same parameters as an ' +
    '`application/x-www-form-urlencoded` body. Limits (400 `invalid_request`): at most 100 ' +
    'items or released lease ids per request (`--max-items`); an item or lease id may not be ' +
    'named like a token claim (`iss`, `sub`, `aud`, `iat`, `exp`, `nbf`, `jti`, `lic`, `rfr`, ' +
    '`hw`, `hwName`, `process`, `version`, `consumptionMode`) or `__proto__`.',
  properties: {
    hw: { description: '`<id>` or `<id>;name=<label>`; echoed as `hw` and `hwName`' },
    process: { description: 'Echoed as `process`' },
    version: { description: 'Echoed as `version`' },
    consumptionMode: { enum: ['cache', 'checkout'], description: 'Echoed' },
    leaseId: { description: 'Renew this lease (one item); kept in `jti`' },
    licenseId: { description: 'License id for `lic`' },
    release: { description: 'Release the lease ids named as parameters' },
    doConsume: {},
    consumeDuration: {},
    consumeCount: {},
    ownerOrganizationId: {},
    ownerUserId: {},
    entitlementId: {},
  },
} as const;

/**
 * The form body of `POST /authz/.jwt` (and main's `/authz/.json`), for OpenAPI only (route
 * `x-request-body`, docs/conformance.md "OpenAPI conventions"): the route reads the raw text, in
 * order, like the query; a POST without a body uses the query alone.
 */
export const authzFormBody = {
  required: false,
  description:
    'The same parameters as the query string (items and reserved names), e.g. `ItemA&hw=pc-1`; ' +
    'merged after the query parameters.',
  content: {
    'application/x-www-form-urlencoded': {
      schema: {
        type: 'object',
        additionalProperties: { type: 'string' },
        properties: Object.fromEntries(
          Object.entries(authzQuerySchema.properties).map(([name, property]) => {
            const { description } = property as { description?: string };
            return [name, { type: 'string', ...(description ? { description } : {}) }];
          }),
        ),
      },
    },
  },
} as const;

/** A public RSA JWK with its certificate chain. */
export const jwkSchema = {
  type: 'object',
  required: ['kty', 'kid', 'use', 'alg', 'n', 'e'],
  properties: {
    kty: { type: 'string' },
    kid: { type: 'string' },
    use: { type: 'string' },
    alg: { type: 'string' },
    n: { type: 'string' },
    e: { type: 'string' },
    x5c: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** `{ keys: [...] }`. */
export const jwksResponseSchema = {
  description: 'The JWK set',
  type: 'object',
  required: ['keys'],
  properties: { keys: { type: 'array', items: jwkSchema } },
} as const;

/** The 200 answer of `/authz/.jwt`: tokens joined by `&`. */
export const authzResponse = {
  description: 'One compact JWS per requested item, in request order, joined by `&`',
  content: {
    'application/jwt': {
      schema: {
        type: 'string',
        pattern:
          '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+(&[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)*$',
      },
    },
  },
} as const;

/** The error answers every `/authz/.jwt` shares (the standby adds its 403). */
export const authzErrors = {
  400: invalidRequestResponse,
  401: unauthorizedResponse,
} as const;

/** 403 of a standby route while it is dormant. */
export const dormantResponse = errorResponse(
  '`standby_dormant`: the standby is dormant (status checks still answer)',
);
