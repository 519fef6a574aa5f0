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
}

/** Every (method, path) of `app.swagger()`, with `{param}` segments filled by `sample`. */
export function describedRoutes(app: FastifyInstance, sample = 'p1'): DescribedRoute[] {
  const doc = (
    app as unknown as { swagger(): { paths: Record<string, Record<string, unknown>> } }
  ).swagger();
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({
      method: method.toUpperCase(),
      path,
      url: path.replace(/\{[^}]+\}/g, sample),
    })),
  );
}
