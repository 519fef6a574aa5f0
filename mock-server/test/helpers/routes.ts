// Test helper: every route a mock-server app describes in its OpenAPI document, with a concrete
// URL, so suites cover routes added later without being edited.
import type { FastifyInstance } from 'fastify';

/** One method of one described route. */
export interface DescribedRoute {
  method: string;
  /** OpenAPI path, e.g. `/events/get/{eventSourceId}`. */
  path: string;
  /** A concrete URL for it: every `{param}` replaced by `sample`. */
  url: string;
  /** The JSON schema of its `application/json` body, when it declares one. */
  bodySchema?: Record<string, unknown>;
}

/** Every (method, path) of `app.swagger()`, with `{param}` segments filled by `sample`. */
export function describedRoutes(app: FastifyInstance, sample = 'p1'): DescribedRoute[] {
  type Operation = {
    requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
  };
  const doc = (
    app as unknown as { swagger(): { paths: Record<string, Record<string, Operation>> } }
  ).swagger();
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      return {
        method: method.toUpperCase(),
        path,
        url: path.replace(/\{[^}]+\}/g, sample),
        ...(bodySchema ? { bodySchema } : {}),
      };
    }),
  );
}
