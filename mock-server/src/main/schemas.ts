import { CLAIM_NAMES } from '../licensing/parse-authz-request.js';
import {
  apiErrorSchema,
  authzHeadersSchema,
  authzQuerySchema,
  authzResponse,
  jwksResponseSchema,
} from '../licensing/schemas.js';

export const authzSchema = {
  summary:
    'Consume, renew or release leases against the catalogue (IdToken, Bearer or ServiceKeyHash)',
  description:
    'Unknown items answer 200 with a token carrying `<item>_errorCode: noLicenseFound` and ' +
    '`<item>_errorMessage` instead of `<item>: true`.',
  tags: ['main'],
  querystring: authzQuerySchema,
  headers: authzHeadersSchema,
  response: { 200: authzResponse, 400: apiErrorSchema, 401: apiErrorSchema },
} as const;

export const authzJsonSchema = {
  summary:
    'The JSON form of /authz/.jwt: the claims of one item, or of a release, unsigned (IdToken, Bearer or ServiceKeyHash)',
  description:
    'Same parameters and authentication as `/authz/.jwt`. Answers the claims object the token ' +
    'would carry: for a release `{ "<leaseId>": true, iss, sub, iat, exp }`, for a consume of one ' +
    "item that item's claims (a denied item: `<item>_errorCode: noLicenseFound`). More than one " +
    'item: 400 `invalid_request`. The standby has no JSON form (404).',
  tags: ['main'],
  querystring: authzQuerySchema,
  headers: authzHeadersSchema,
  response: {
    200: { type: 'object', additionalProperties: true },
    400: apiErrorSchema,
    401: apiErrorSchema,
  },
} as const;

export const jwksSchema = {
  summary: 'The main signing key with its x5c chain (public)',
  tags: ['main'],
  response: { 200: jwksResponseSchema },
} as const;

/** `POST /licensing/actions/checkout`: at most `maxItems` lines (the `maxItemsPerRequest` limit). */
export const checkoutSchema = (maxItems: number) =>
  ({
    summary: 'Check out licenses with an ID token (IdToken or Bearer)',
    tags: ['main'],
    headers: authzHeadersSchema,
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        hw: {
          type: 'string',
          maxLength: 512,
          description: 'Hardware id, or `<id>;name=<label>`: echoed as `hw` (and `hwName`)',
        },
        process: { type: 'string', maxLength: 512, description: 'Echoed as `process`' },
        version: { type: 'string', maxLength: 512, description: 'Echoed as `version`' },
      },
    },
    body: {
      type: 'array',
      minItems: 1,
      maxItems,
      items: {
        type: 'object',
        required: ['productName', 'qty', 'qtyDimension'],
        additionalProperties: false,
        properties: {
          productName: {
            type: 'string',
            minLength: 1,
            maxLength: 200,
            // Named like a token claim, its `<item>: true` would be overwritten by the claim.
            not: { enum: [...CLAIM_NAMES] },
            description: 'Not a token claim name (iss, sub, exp, ...)',
          },
          qty: { type: 'integer', minimum: 1 },
          qtyDimension: { type: 'string', enum: ['SEATS', 'USE_COUNT', 'USE_TIME'] },
        },
      },
    },
    response: {
      200: {
        type: 'array',
        items: {
          type: 'object',
          required: ['productName', 'granted'],
          properties: {
            productName: { type: 'string' },
            granted: { type: 'boolean' },
            jwt: { type: 'string' },
            errorCode: { type: 'string' },
            errorDescription: { type: 'string' },
          },
        },
      },
      400: apiErrorSchema,
      401: apiErrorSchema,
      415: apiErrorSchema,
    },
  }) as const;
