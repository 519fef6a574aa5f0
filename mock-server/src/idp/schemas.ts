import { invalidRequestResponse, SECURITY } from '../openapi/responses.js';

export const tokenRequestSchema = {
  operationId: 'mintIdToken',
  summary: 'Mint an ID token (RS256) for local runs',
  tags: ['idp'],
  security: SECURITY.public,
  body: {
    type: 'object',
    required: ['sub'],
    additionalProperties: false,
    properties: {
      sub: { type: 'string', minLength: 1 },
      email: { type: 'string' },
      aud: {
        anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
      },
      expiresInSeconds: { type: 'integer', minimum: 1, maximum: 31_536_000 },
      claims: {
        type: 'object',
        description: 'Extra claims, e.g. `{ "*": true }` for an event-feed read token',
        additionalProperties: true,
      },
    },
  },
  response: {
    200: {
      description: 'The signed ID token',
      type: 'object',
      required: ['id_token'],
      properties: { id_token: { type: 'string' } },
    },
    400: invalidRequestResponse,
  },
} as const;

export const jwksSchema = {
  operationId: 'getIdpJwks',
  summary: 'Public keys of the issuer',
  tags: ['idp'],
  security: SECURITY.public,
  response: {
    200: {
      description: 'The JWK set',
      type: 'object',
      required: ['keys'],
      properties: {
        keys: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
  },
} as const;

export const discoverySchema = {
  operationId: 'getIdpDiscovery',
  summary: 'OpenID Connect discovery document',
  tags: ['idp'],
  security: SECURITY.public,
  response: {
    200: {
      description: 'The discovery document',
      type: 'object',
      additionalProperties: true,
    },
  },
} as const;
