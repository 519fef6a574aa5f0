import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';
import { loadCompilerPackage } from '../validation/load-compiler-package.js';

// The compiler packages (Ajv and fast-json-stringify with them) load with the first schema to
// compile, not at start: about 25 ms of a cold start.

/** A compiled validation function as Fastify calls it: the result, then its `errors`. */
type Validate = ReturnType<FastifySchemaCompiler<unknown>>;
type Serialize = (data: unknown) => string;
/** A compiler as the two packages build them (their own types differ by package). */
type Compiler = (route: unknown) => unknown;
type CompilerFactory = (externalSchemas: unknown, options: unknown) => Compiler;

/**
 * Fastify's own schema compilers (Ajv for validation, fast-json-stringify for answers) with every
 * compilation put off until the route first uses it. Compiling the routes' schemas costs about
 * 80 ms of CPU before the server could listen, a sixth of the cold-start budget (the bin answers
 * within 0.5 s, bench row 7); a CI suite that starts a mock per file pays it per file, mostly
 * for routes it never calls. The compiled functions are the same: a route validates and
 * serializes exactly as before, once it has compiled them.
 */
export interface LazySchemaCompilers {
  /** The Fastify option `schemaController` that installs them. */
  readonly schemaController: NonNullable<FastifyServerOptions['schemaController']>;
  /** Wraps any compilation (a plugin's own `setValidatorCompiler`) the same way. */
  lazyValidator(compile: () => Validate): Validate;
  /**
   * Compiles every schema not compiled yet, and throws what a broken schema throws. `buildApp`
   * calls it, so a schema error fails every test that builds the app, as it would have failed
   * the start before.
   */
  compileAll(): void;
}

/**
 * Creates the lazy compilers of one server.
 *
 * @example
 * const compilers = createLazySchemaCompilers();
 * const app = Fastify({ schemaController: compilers.schemaController });
 */
export function createLazySchemaCompilers(): LazySchemaCompilers {
  const pending = new Set<() => void>();

  /** `compile` run once, on the first call of the returned function or by `compileAll`. */
  const once = <T>(compile: () => T): (() => T) => {
    let compiled: { value: T } | undefined;
    const ensure = () => {
      if (compiled) return compiled.value;
      compiled = { value: compile() };
      pending.delete(ensure);
      return compiled.value;
    };
    pending.add(ensure);
    return ensure;
  };

  const lazyValidator = (compile: () => Validate): Validate => {
    const ensure = once(compile);
    const validate: Validate = (data: unknown) => {
      const fn = ensure();
      const result = fn(data);
      validate.errors = fn.errors ?? null;
      return result;
    };
    return validate;
  };

  const lazySerializer = (compile: () => Serialize): Serialize => {
    const ensure = once(compile);
    return (data) => ensure()(data);
  };

  let validatorFactory: CompilerFactory | undefined;
  let serializerFactory: CompilerFactory | undefined;
  const buildValidator: CompilerFactory = (externalSchemas, options) => {
    validatorFactory ??= (
      loadCompilerPackage('@fastify/ajv-compiler') as unknown as () => CompilerFactory
    )();
    return validatorFactory(externalSchemas, options);
  };
  const buildSerializer: CompilerFactory = (externalSchemas, options) => {
    serializerFactory ??= (
      loadCompilerPackage('@fastify/fast-json-stringify-compiler') as unknown as {
        SerializerSelector: () => CompilerFactory;
      }
    ).SerializerSelector();
    return serializerFactory(externalSchemas, options);
  };
  const compilersFactory = {
    // The Ajv instance itself waits for the first compilation too: adding the shared schemas to
    // it compiles Ajv's meta-schema (about 35 ms).
    buildValidator: (externalSchemas: unknown, options: unknown) => {
      let compiler: Compiler | undefined;
      return (route: unknown) =>
        lazyValidator(() => {
          compiler ??= buildValidator(externalSchemas, options);
          return compiler(route) as Validate;
        });
    },
    // A compiler per route: the package's compiler shares its options between the routes and
    // drops a shared schema from them for good once a route's own schema carries its `$id` (an
    // inline ApiError schema), after which `{ $ref: 'ApiError#' }` no longer resolves.
    buildSerializer: (externalSchemas: unknown, options: unknown) => (route: unknown) =>
      lazySerializer(() => buildSerializer(externalSchemas, options)(route) as Serialize),
  };
  const schemaController = {
    compilersFactory,
  } as unknown as LazySchemaCompilers['schemaController'];

  return {
    schemaController,
    lazyValidator,
    compileAll() {
      for (const ensure of [...pending]) ensure();
    },
  };
}
