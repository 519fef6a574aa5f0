import { createRequire } from 'node:module';
import type { Ajv, SchemaObject } from 'ajv';

/**
 * Checks a document read from the data dir and returns it typed, or throws an Error saying what
 * is wrong with it (the store adds the file's path).
 */
export type DocumentCheck<T> = (value: unknown) => T;

// Loaded with the first document read (never, without a data dir): off the cold start.
const require = createRequire(import.meta.url);
let shared: Ajv | undefined;
/** The Ajv instance of data files: checked as they are, never coerced or completed. */
function documentAjv(): Ajv {
  const { Ajv: AjvClass } = require('ajv') as typeof import('ajv');
  shared ??= new AjvClass({ coerceTypes: false, useDefaults: false, removeAdditional: false });
  return shared;
}

/**
 * Creates a {@link DocumentCheck} from a JSON schema (the shape) plus `verify`, for what a schema
 * cannot say (a PEM that parses, ids that are unique); `verify` throws an Error describing the
 * problem.
 *
 * @example
 * const checkState = createDocumentCheck<StoredState>({ type: 'object', required: ['state'] });
 * const state = await store.read('standby-state', checkState);
 */
export function createDocumentCheck<T>(
  schema: SchemaObject,
  verify?: (value: T) => void,
): DocumentCheck<T> {
  // Compiled on first use: a server without a data dir never reads a document, and compiling
  // these schemas (Ajv's meta-schema first) would cost its cold start about 45 ms.
  let compiled: ReturnType<Ajv['compile']> | undefined;
  return (value) => {
    compiled ??= documentAjv().compile(schema);
    const validate = compiled;
    if (!validate(value)) {
      const [error] = validate.errors ?? [];
      throw new Error(
        `${error?.instancePath ? `${error.instancePath} ` : 'the document '}${error?.message ?? 'has the wrong shape'}`,
      );
    }
    verify?.(value as T);
    return value as T;
  };
}
