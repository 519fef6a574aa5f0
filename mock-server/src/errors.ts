import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance } from 'fastify';

/** The spec's error body: `{ error, error_description?, error_uri? }`. */
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
  }
  if (err instanceof SyntaxError) return new ApiError(400, 'invalid_request', err.message);
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError(status, 'invalid_request', err.message);
  return new ApiError(500, 'server_error', 'Internal server error');
}

/** Installs the one error handler and not-found handler that emit ApiError bodies everywhere. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const apiError = err instanceof ApiError ? err : fromFastifyError(err);
    if (apiError.statusCode >= 500) request.log.error({ err }, 'request failed');
    return reply
      .code(apiError.statusCode)
      .headers(apiError.headers)
      .type('application/json')
      .send(apiError.toBody());
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .type('application/json')
      .send({ error: 'not_found', error_description: `No route ${request.method} ${request.url}` }),
  );
}

/**
 * Fastify `clientErrorHandler`: answers requests Node cannot parse (oversized headers, bad
 * request lines, timeouts) with an ApiError body instead of Fastify's own shape.
 */
export function handleClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, error, description] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request_too_large', 'The request headers exceed the size limit']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request took too long to arrive']
        : [400, 'invalid_request', 'The request is not valid HTTP'];
  const body = JSON.stringify({ error, error_description: description });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
