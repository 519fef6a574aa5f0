import {
  apiErrorSchema,
  authzHeadersSchema,
  authzQuerySchema,
  authzResponse,
  jwksResponseSchema,
} from '../licensing/schemas.js';

const managementHeaders = {
  type: 'object',
  properties: { 'service-apikey': { type: 'string', description: 'Management API key' } },
} as const;

const booleanResponse = { type: 'boolean' } as const;

export const enableSchema = {
  summary: 'Enable the standby (management, Service-ApiKey)',
  tags: ['standby'],
  headers: managementHeaders,
  response: { 200: booleanResponse, 401: apiErrorSchema },
} as const;

export const disableSchema = {
  summary: 'Disable the standby (management, Service-ApiKey)',
  tags: ['standby'],
  headers: managementHeaders,
  response: { 200: booleanResponse, 401: apiErrorSchema },
} as const;

export const enabledStatusSchema = {
  summary: 'Status check: is the standby enabled? (Authorization)',
  tags: ['standby'],
  headers: authzHeadersSchema,
  response: { 200: booleanResponse, 401: apiErrorSchema },
} as const;

export const disabledSchema = {
  summary:
    'With Service-ApiKey: disable the standby (management). Without: status check, is it disabled?',
  tags: ['standby'],
  headers: {
    type: 'object',
    properties: { ...managementHeaders.properties, ...authzHeadersSchema.properties },
  },
  response: { 200: booleanResponse, 401: apiErrorSchema },
} as const;

export const signingKeySchema = {
  summary: 'Generate a signing key (new default) with its own root certificate',
  tags: ['standby'],
  headers: managementHeaders,
  response: {
    201: {
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
    401: apiErrorSchema,
  },
} as const;

export const jwksSchema = {
  summary: 'Every signing key, newest first, with x5c (Authorization; 403 while dormant)',
  tags: ['standby'],
  headers: authzHeadersSchema,
  response: { 200: jwksResponseSchema, 401: apiErrorSchema, 403: apiErrorSchema },
} as const;

export const authzSchema = {
  summary: 'Consume, renew or release leases (Authorization; 403 while dormant)',
  tags: ['standby'],
  querystring: authzQuerySchema,
  headers: {
    type: 'object',
    properties: {
      ...authzHeadersSchema.properties,
      'service-signingkeyid': { type: 'string', description: 'Signing key to use' },
    },
  },
  response: {
    200: authzResponse,
    400: apiErrorSchema,
    401: apiErrorSchema,
    403: apiErrorSchema,
  },
} as const;
