import { apiErrorSchema } from '../errors.js';

const errors = { 400: apiErrorSchema, 415: apiErrorSchema };

export const tokenRequestSchema = {
  summary: 'Mint an ID token (RS256) for local runs',
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
      type: 'object',
      required: ['id_token'],
      properties: { id_token: { type: 'string' } },
    },
    ...errors,
  },
} as const;

export const jwksSchema = {
  summary: 'Public keys of the issuer',
  response: {
    200: {
      type: 'object',
      required: ['keys'],
      properties: {
        keys: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
  },
} as const;

export const discoverySchema = {
  summary: 'OpenID Connect discovery document',
  response: { 200: { type: 'object', additionalProperties: true } },
} as const;
