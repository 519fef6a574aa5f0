import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The services' error body: `{ error, error_description?, error_uri? }`; see
 * https://github.com/standby-licensing/standby-licensing/blob/main/docs/protocol.md#the-apierror-body
 */
export interface ApiErrorBody {
  error: string;
  error_description?: string;
  error_uri?: string;
}

/**
 * An error that the shared error handler turns into an ApiError response.
 * Throw it from any route: `throw new ApiError(403, 'standby_dormant', 'The standby is dormant')`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly statusCode: number;
  readonly error: string;
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    error: string,
    description?: string,
    headers: Record<string, string> = {},
  ) {
    super(description ?? error);
    this.statusCode = statusCode;
    this.error = error;
    this.headers = headers;
  }

  toBody(): ApiErrorBody {
    return this.message === this.error
      ? { error: this.error }
      : { error: this.error, error_description: this.message };
  }
}

/** JSON schema of the ApiError body, for every route's error responses. */
export const apiErrorSchema = {
  $id: 'ApiError',
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string' },
    error_description: { type: 'string' },
    error_uri: { type: 'string' },
  },
} as const;

/** The ApiError `error` code of a 4xx status that carries no code of its own. */
const CODE_BY_STATUS: Record<number, string> = {
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'request_too_large',
  414: 'request_too_large',
  415: 'unsupported_media_type',
  431: 'request_too_large',
};

function fromFastifyError(err: FastifyError): ApiError {
  if (err.validation) return new ApiError(400, 'invalid_request', err.message);
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'request_too_large', 'The request body exceeds the size limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'unsupported_media_type', err.message);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, 'invalid_request', err.message);
    // A long path segment: a limit like any other (400), never Fastify's 414.
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(400, 'invalid_request', 'A path segment exceeds the length limit');
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'invalid_request', 'The request URL is not valid');
  }
  if (err instanceof SyntaxError) return new ApiError(400, 'invalid_request', err.message);
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, CODE_BY_STATUS[status] ?? 'invalid_request', err.message);
  }
  return new ApiError(500, 'server_error', 'Internal server error');
}

/** Sends `apiError` as the ApiError body on `reply` (its own headers added). */
function sendApiError(reply: FastifyReply, apiError: ApiError): FastifyReply {
  return reply
    .code(apiError.statusCode)
    .headers(apiError.headers)
    .type('application/json')
    .send(apiError.toBody());
}

/** Installs the one error handler and not-found handler that emit ApiError bodies everywhere. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const apiError = err instanceof ApiError ? err : fromFastifyError(err);
    if (apiError.statusCode >= 500 && !(err instanceof ApiError)) {
      request.log.error({ err }, 'request failed');
    }
    return sendApiError(reply, apiError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendApiError(
      reply,
      new ApiError(404, 'not_found', `No route ${request.method} ${request.url.slice(0, 200)}`),
    ),
  );
}

/**
 * Fastify `frameworkErrors`: the answers the router gives before any hook runs (a URL it cannot
 * decode, a path segment over `maxParamLength`) as ApiErrors, with the CORS headers the hooks
 * would have added.
 *
 * @example
 * Fastify({
 *   frameworkErrors: createFrameworkErrorHandler((origin, url) => cors.headersFor(origin, url)),
 * });
 */
export function createFrameworkErrorHandler(
  corsHeaders: (origin: string | undefined, url: string) => Record<string, string>,
): (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (err, request, reply) => {
    reply.headers(corsHeaders(request.headers.origin, request.url));
    sendApiError(reply, fromFastifyError(err));
  };
}
