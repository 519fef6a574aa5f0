import {
  authzErrors,
  authzFormBody,
  authzQuerySchema,
  authzResponse,
  dormantResponse,
  jwksResponseSchema,
} from '../licensing/schemas.js';
import { invalidApiKeyResponse, SECURITY, unauthorizedResponse } from '../openapi/responses.js';

const booleanResponse = { type: 'boolean' } as const;

/**
 * PATCH, POST and PUT `/enabled`: one route, so one operation per method in the document
 * (`enableStandbyPatch`, ...; docs/conformance.md "OpenAPI conventions").
 */
export const enableSchema = {
  operationId: 'enableStandby',
  summary: 'Enable the standby (management)',
  description:
    'Answers `true` at once; the state changes after the propagation delay (`--propagation-delay-ms`).',
  tags: ['standby'],
  security: SECURITY.management,
  response: {
    200: { ...booleanResponse, description: 'Always `true`' },
    401: invalidApiKeyResponse,
  },
} as const;

export const disableSchema = {
  operationId: 'disableStandby',
  summary: 'Disable the standby (management)',
  description:
    'Answers `true` at once; the state changes after the propagation delay (`--propagation-delay-ms`).',
  tags: ['standby'],
  security: SECURITY.management,
  response: {
    200: { ...booleanResponse, description: 'Always `true`' },
    401: invalidApiKeyResponse,
  },
} as const;

export const enabledStatusSchema = {
  operationId: 'getStandbyEnabled',
  summary: 'Status check: is the standby enabled?',
  tags: ['standby'],
  security: SECURITY.standbyCaller,
  response: {
    200: { ...booleanResponse, description: '`true` while active' },
    401: unauthorizedResponse,
  },
} as const;

export const disabledSchema = {
  operationId: 'getStandbyDisabled',
  summary: 'Status check: is the standby disabled? With the management key: disable it',
  description:
    'With the management key header this is a management call that disables the standby and ' +
    'answers `true`; without it, a status check with `Authorization`.',
  tags: ['standby'],
  security: SECURITY.managementOrStandbyCaller,
  response: {
    200: {
      ...booleanResponse,
      description: '`true` while dormant (status), or `true` (management)',
    },
    401: {
      ...unauthorizedResponse,
      description:
        '`invalid_api_key` (management key given and wrong), else `unauthorized` or `invalid_token` with `WWW-Authenticate`',
    },
  },
} as const;

export const signingKeySchema = {
  operationId: 'createStandbySigningKey',
  summary: 'Generate a signing key (the new default) with its own root certificate',
  tags: ['standby'],
  security: SECURITY.management,
  response: {
    201: {
      description: 'The new key and its certificates',
      type: 'object',
      required: ['keyId', 'rootCertificate', 'signingCertificate', 'notBefore', 'notAfter'],
      properties: {
        keyId: { type: 'string' },
        rootCertificate: { type: 'string', description: 'PEM' },
        signingCertificate: { type: 'string', description: 'PEM' },
        notBefore: { type: 'string', format: 'date-time' },
        notAfter: { type: 'string', format: 'date-time' },
      },
    },
    401: invalidApiKeyResponse,
  },
} as const;

export const jwksSchema = {
  operationId: 'getStandbyJwks',
  summary: 'Every signing key, newest first, with its x5c chain',
  tags: ['standby'],
  security: SECURITY.standbyCaller,
  response: { 200: jwksResponseSchema, 401: unauthorizedResponse, 403: dormantResponse },
} as const;

/** GET and POST `/authz/.jwt` (`requestStandbyLeasesGet`, `requestStandbyLeasesPost`). */
export const authzSchema = {
  operationId: 'requestStandbyLeases',
  summary: 'Consume, renew or release leases',
  tags: ['standby'],
  security: SECURITY.standbyCaller,
  querystring: authzQuerySchema,
  headers: {
    type: 'object',
    properties: {
      'service-signingkeyid': {
        type: 'string',
        description:
          'Sign with this key (a `keyId`) instead of the newest (wire name configurable)',
      },
    },
  },
  'x-request-body': authzFormBody,
  response: {
    200: authzResponse,
    ...authzErrors,
    400: {
      ...authzErrors[400],
      description:
        '`invalid_request`, or `unknown_signing_key` for an unknown Service-SigningKeyId',
    },
    403: dormantResponse,
  },
} as const;
