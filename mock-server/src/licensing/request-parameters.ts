import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Lets `/authz/.jwt` take its parameters as an `application/x-www-form-urlencoded` body: the raw
 * text is kept (item order and `ItemA=;leaseId=J1` forms matter) for {@link rawParameters}.
 * Register it inside the service's scope. Plain-text bodies are refused there (415), so a body in
 * the wrong type is never silently ignored.
 */
export function addFormBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, body),
  );
}

/** The raw query string and raw form body (if any) of a request. */
export function rawParameters(request: FastifyRequest): [string, string | undefined] {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  const query = mark < 0 ? '' : url.slice(mark + 1);
  const body = typeof request.body === 'string' ? request.body : undefined;
  return [query, body];
}

/**
 * The absolute base URL of a service, e.g. `https://licensing.example.test/standby`: the server's
 * own public URL (`--public-url`, default the URL it listens on) plus the service's prefix. Never
 * taken from the request's `Host` header, which any client can set (docs/protocol.md "Token
 * claims").
 */
export function serviceBaseUrl(request: FastifyRequest, prefix: string): string {
  return `${request.server.config.publicUrl}${prefix}`;
}
