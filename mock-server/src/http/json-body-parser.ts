import type { FastifyInstance } from 'fastify';
import { measureJsonDepth } from '../validation/json-depth.js';
import { ApiError } from './api-error.js';

/**
 * Replaces the instance's `application/json` parser with Fastify's own (prototype-poisoning
 * checks included) behind a depth check: a body whose outermost container holds more than
 * `maxDepth` levels of containers is 400 `invalid_request`, before it is parsed. Removes the
 * `text/plain` parser: a text body is 415 `unsupported_media_type` on every route.
 */
export function addDepthCheckedJsonParser(app: FastifyInstance, maxDepth: number): void {
  // Fastify's default `text/plain` parser would hand a text body to JSON schemas (a 400); no
  // route takes text, so it is an unsupported media type (415) everywhere.
  app.removeContentTypeParser('text/plain');
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // The body's own container is not counted.
    if (measureJsonDepth(text, maxDepth + 1) - 1 > maxDepth) {
      done(
        new ApiError(400, 'invalid_request', `The JSON body nests deeper than ${maxDepth} levels`),
        undefined,
      );
      return;
    }
    parse(request, text, done);
  });
}
