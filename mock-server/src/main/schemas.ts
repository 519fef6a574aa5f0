import { LEASE_CLAIM_NAMES } from '@standby-licensing/wire';
import {
  authzErrors,
  authzFormBody,
  authzQuerySchema,
  authzResponse,
  jwksResponseSchema,
} from '../licensing/schemas.js';
import { invalidRequestResponse, SECURITY, unauthorizedResponse } from '../openapi/responses.js';

/** GET and POST `/authz/.jwt` (`requestMainLeasesGet`, `requestMainLeasesPost`). */
export const authzSchema = {
  operationId: 'requestMainLeases',
  summary: 'Consume, renew or release leases against the catalogue',
  description:
    'Unknown items answer 200 with a token carrying `<item>_errorCode: noLicenseFound` and ' +
    '`<item>_errorMessage` instead of `<item>: true`.',
  tags: ['main'],
  security: SECURITY.mainCaller,
  querystring: authzQuerySchema,
  'x-request-body': authzFormBody,
  response: { 200: authzResponse, ...authzErrors },
} as const;

/** GET and POST `/authz/.json` (`requestMainLeaseClaimsGet`, `requestMainLeaseClaimsPost`). */
export const authzJsonSchema = {
  operationId: 'requestMainLeaseClaims',
  summary: 'The JSON form of /authz/.jwt: the claims of one item, or of a release, unsigned',
  description:
    'Same parameters and authentication as `/authz/.jwt`. Answers the claims object the token ' +
    'would carry: for a release `{ "<leaseId>": true, iss, sub, iat, exp }`, for a consume of one ' +
    "item that item's claims (a denied item: `<item>_errorCode: noLicenseFound`). More than one " +
    'item: 400 `invalid_request`. The standby has no JSON form (404).',
  tags: ['main'],
  security: SECURITY.mainCaller,
  querystring: authzQuerySchema,
  'x-request-body': authzFormBody,
  response: {
    200: {
      description: 'The claims the token would carry',
      type: 'object',
      additionalProperties: true,
    },
    ...authzErrors,
  },
} as const;

export const jwksSchema = {
  operationId: 'getMainJwks',
  summary: 'The main signing key with its x5c chain',
  tags: ['main'],
  security: SECURITY.public,
  response: { 200: jwksResponseSchema },
} as const;

/** `POST /licensing/actions/checkout`: at most `maxItems` lines (the `maxItemsPerRequest` limit). */
export const checkoutSchema = (maxItems: number) =>
  ({
    operationId: 'checkoutMainLicenses',
    summary: 'Check out licenses with an ID token',
    tags: ['main'],
    security: SECURITY.user,
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
            not: { enum: [...LEASE_CLAIM_NAMES] },
            description: 'Not a token claim name (iss, sub, exp, ...)',
          },
          qty: { type: 'integer', minimum: 1 },
          qtyDimension: { type: 'string', enum: ['SEATS', 'USE_COUNT', 'USE_TIME'] },
        },
      },
    },
    response: {
      200: {
        description: 'One result per line, in order',
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
      400: invalidRequestResponse,
      401: unauthorizedResponse,
    },
  }) as const;
