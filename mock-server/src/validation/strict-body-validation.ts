import type { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { loadCompilerPackage } from './load-compiler-package.js';

// Ajv loads with the first schema compiled, not at start.
let instances: { bodies: Ajv; text: Ajv } | undefined;

function strictAjv(): { bodies: Ajv; text: Ajv } {
  if (instances) return instances;
  const { Ajv: AjvClass } = loadCompilerPackage('ajv');
  instances = {
    // Bodies: what the client sent, checked as sent. `"5"`, `null` and `true` are not integers,
    // and a member the schema does not list is refused (with `additionalProperties: false`),
    // never silently dropped. Defaults still fill in absent members.
    bodies: new AjvClass({ coerceTypes: false, useDefaults: true, removeAdditional: false }),
    // Query strings, params and headers are text by nature: coerced as Fastify does by default.
    text: new AjvClass({ coerceTypes: 'array', useDefaults: true, removeAdditional: true }),
  };
  return instances;
}

/**
 * Makes every route registered in this plugin scope (and its children) validate its JSON body
 * strictly: no type coercion and no removal of unknown members; other request parts keep
 * Fastify's usual coercion. Failures are 400 `invalid_request` ApiErrors like any validation
 * error. Call it first thing in a service plugin, before its routes; the admin API uses it, and
 * admin routes added later inherit it by being registered in the same scope.
 *
 * @example
 * export async function adminService(app: FastifyInstance) {
 *   useStrictBodyValidation(app);
 *   app.put('/clock', { schema: { body: { type: 'object', properties: { offsetMs: { type: 'integer' } } } } }, handler);
 * }
 */
export function useStrictBodyValidation(app: FastifyInstance): void {
  // Compiled on first use, like every schema of the server (http/lazy-schema-compilers.ts).
  app.setValidatorCompiler(({ schema, httpPart }) =>
    app.schemaCompilers.lazyValidator(() =>
      strictAjv()[httpPart === 'body' ? 'bodies' : 'text'].compile(schema),
    ),
  );
}
