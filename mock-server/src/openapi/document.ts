import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { WireNames } from '../options.js';
import { retryAfterHeader, SECURITY_SCHEMES } from './responses.js';

/** A JSON object of the document, loosely typed: the module only moves parts around. */
type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Methods whose requests carry a body Fastify parses (so 413 and 415 can answer them). */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

const DESCRIPTION = [
  'The standby licensing service (`/standby`), a mock main licensing service (`/main`), an ID-token',
  'issuer (`/idp`), the event data service (`/events`) and, with `--admin`, the admin API and QA',
  'console (`/admin`), in one server.',
  '',
  'Every refusal is an `ApiError` body (`application/json`); a request to a path this document does',
  'not list gets 404 `not_found`, which OpenAPI cannot describe per path. With `--admin`, the main',
  "service's routes can also answer a fault injected through `POST /admin/faults`: a 5XX HTML page,",
  'a delay, a hang or a reset.',
  '',
  'Feed timestamps (`eventReceived`) are int64 nanoseconds above 2^53: the JSON carries the exact',
  'digits and `eventReceived_str` the same value as a string; a JSON parser that reads numbers as',
  'doubles rounds them (see',
  'https://github.com/standby-licensing/standby-licensing/blob/main/docs/conformance.md#openapi).',
].join('\n');

/**
 * The `@fastify/swagger` options of the mock server (docs/conformance.md "OpenAPI conventions"):
 * the security schemes under the wire names in use, shared responses, tags, and schemas named by
 * their `$id` (`#/components/schemas/ApiError`).
 *
 * @example
 * await app.register(swagger, createSwaggerOptions(config.wireNames));
 */
export function createSwaggerOptions(wireNames: Readonly<WireNames>): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Standby licensing mock server',
        version: '0.1.0',
        description: DESCRIPTION,
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      },
      tags: [
        { name: 'standby', description: 'The standby licensing service' },
        { name: 'main', description: 'The mock main licensing service' },
        { name: 'idp', description: 'The built-in ID-token issuer' },
        { name: 'events', description: 'The event data service' },
        { name: 'admin', description: 'Admin API and QA console (with `--admin`)' },
      ],
      components: {
        securitySchemes: {
          // IdToken and ServiceKeyHash are `Authorization` schemes of their own. OpenAPI's `http`
          // type would name them (`scheme: IdToken`), but validating proxies (Stoplight Prism)
          // then refuse every request to such an operation: as `apiKey` schemes in the
          // `Authorization` header, with the scheme word in the description, every tool checks
          // that the header is there (docs/conformance.md "OpenAPI conventions").
          [SECURITY_SCHEMES.idToken]: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: `\`Authorization: ${wireNames.idTokenScheme} <ID token>\`: the scheme word \`${wireNames.idTokenScheme}\`, a space, then an RS256 ID token of a trusted issuer (the standby also accepts one up to 24 h past its \`exp\`)`,
          },
          [SECURITY_SCHEMES.bearer]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              '`Authorization: Bearer <JWT>`: an ID token (main) or an event read JWT (events)',
          },
          [SECURITY_SCHEMES.serviceKeyHash]: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: `\`Authorization: ${wireNames.serviceKeyHashScheme} <hex>\`: the scheme word \`${wireNames.serviceKeyHashScheme}\`, a space, then the lower-case hex SHA-256 of the main deployment's public key PEM`,
          },
          [SECURITY_SCHEMES.apiKey]: {
            type: 'apiKey',
            in: 'header',
            name: wireNames.apiKeyHeader,
            description: 'The standby management API key',
          },
        },
      },
    },
    // Shared schemas keep their $id as name: `$ref: 'ApiError#'` becomes
    // `#/components/schemas/ApiError`.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  };
}

/** Options of {@link finishOpenApiDocument}. */
export interface FinishOptions {
  /** True for a path whose routes a fault can answer (main's, with `--admin`). */
  faultable: (path: string) => boolean;
}

/** The ApiError schema as `components.responses` reference it. */
const API_ERROR = { $ref: '#/components/schemas/ApiError' } as const;

const SHARED_RESPONSES = {
  BadRequest: {
    description:
      '`invalid_request`: a request the server cannot take (a malformed URL, an HTTP/1.1 request without Host, a path segment over `--max-id-length`)',
    content: { 'application/json': { schema: API_ERROR } },
  },
  Error: {
    description:
      'Any other refusal, as an ApiError: 400 `invalid_request` (a malformed URL, a missing Host), 404 `not_found` (no such method on this path), 408 `request_timeout`, 431 `request_too_large` (headers), 503 `service_unavailable` (the server is shutting down)',
    content: { 'application/json': { schema: API_ERROR } },
  },
  PayloadTooLarge: {
    description: '`request_too_large`: the body exceeds `--max-body-bytes`',
    content: { 'application/json': { schema: API_ERROR } },
  },
  UnsupportedMediaType: {
    description: '`unsupported_media_type`: a body of a media type this route does not read',
    content: { 'application/json': { schema: API_ERROR } },
  },
  Fault: {
    description:
      'A fault injected with `POST /admin/faults` (`mode: error`): 500 or 503 with an HTML page, and `Retry-After` when the fault sets `retryAfterSeconds`',
    headers: {
      'Retry-After': {
        description: retryAfterHeader['Retry-After'].description,
        schema: { type: 'integer' },
      },
    },
    content: { 'text/html': { schema: { type: 'string' } } },
  },
} as const;

function responseRef(name: keyof typeof SHARED_RESPONSES): Json {
  return { $ref: `#/components/responses/${name}` };
}

/** `$ref: 'ApiError#'` as @fastify/swagger leaves it inside hand-written `content`. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string' && inner.endsWith('#') && !inner.startsWith('#')
        ? `#/components/schemas/${inner.slice(0, -1)}`
        : rewriteRefs(inner);
  }
  return out;
}

/**
 * Completes what `app.swagger()` produced (a copy; the input is left as it is), per the
 * conventions of docs/conformance.md "OpenAPI conventions":
 *
 * - one operation per method: an operation several methods share (one route, `method: [...]`)
 *   gets its `operationId` suffixed with the method (`enableStandbyPatch`);
 * - a route's `x-request-body` becomes the `requestBody` of its body-carrying methods (a body the
 *   route parses itself, which a Fastify `body` schema would wrongly validate);
 * - every body-carrying operation may answer 413 and 415, every operation `default` (ApiError),
 *   and every faultable one `5XX` (the HTML fault page), all by reference to
 *   `components.responses`;
 * - every operation may answer 400 (a malformed URL, no Host), by reference when it names none;
 * - `servers` is the serving server (`/`).
 *
 * @example
 * const document = finishOpenApiDocument(app.swagger(), { faultable: () => false });
 */
export function finishOpenApiDocument(swagger: unknown, options: FinishOptions): Json {
  const doc = rewriteRefs(swagger) as Json & { paths?: Record<string, Json>; components?: Json };
  // Relative: the server that serves this document, whatever its public URL.
  doc.servers = [{ url: '/', description: 'The server that serves this document' }];
  doc.components = { ...doc.components, responses: SHARED_RESPONSES };
  const paths: Record<string, Json> = {};
  const original = (swagger as { paths?: Record<string, Json> }).paths ?? {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared = new Map<unknown, number>();
    for (const method of METHODS) {
      const op = original[path]?.[method];
      if (op) shared.set(op, (shared.get(op) ?? 0) + 1);
    }
    const out: Json = {};
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const sharedBy = shared.get(original[path]?.[method]) ?? 1;
      out[method] = finishOperation(op, method, path, sharedBy > 1, options);
    }
    paths[path] = out;
  }
  doc.paths = paths;
  // Without a faultable route (no --admin), the fault page is never answered: not described.
  const faults = Object.values(paths).some((item) =>
    Object.values(item).some((op) => '5XX' in ((op as Json).responses as Json)),
  );
  if (!faults) {
    const { Fault: _, ...responses } = SHARED_RESPONSES;
    doc.components = { ...doc.components, responses };
  }
  return doc;
}

function finishOperation(
  operation: Json,
  method: string,
  path: string,
  shared: boolean,
  options: FinishOptions,
): Json {
  const op: Json = { ...operation };
  if (shared && typeof op.operationId === 'string') {
    op.operationId = `${op.operationId}${method[0]!.toUpperCase()}${method.slice(1)}`;
  }
  const body = op['x-request-body'];
  delete op['x-request-body'];
  if (body !== undefined && BODY_METHODS.has(method)) op.requestBody = body;
  const responses: Json = { ...(op.responses as Json) };
  if (BODY_METHODS.has(method)) {
    responses['413'] ??= responseRef('PayloadTooLarge');
    responses['415'] ??= responseRef('UnsupportedMediaType');
  }
  responses['400'] ??= responseRef('BadRequest');
  if (options.faultable(path)) responses['5XX'] ??= responseRef('Fault');
  responses.default ??= responseRef('Error');
  op.responses = responses;
  return op;
}
