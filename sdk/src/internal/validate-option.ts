// The SDK's one family of input validators (p-retry `validateNumberOption`). Each check names the
// offending input. `option` checks construction options and throws InvalidOptionError;
// `argument` checks per-call arguments and throws a plain LicensingError. Both have the code
// INVALID_ARGUMENT.
import { InvalidOptionError, LicensingError } from '../errors.js';

interface NumberRule {
  /** Smallest allowed value. Default 0. */
  min?: number;
  /** Largest allowed value. Default: unbounded. */
  max?: number;
  /** Whole numbers only. Default false. */
  integer?: boolean;
}

/** Validators bound to one way of failing. */
export interface Validators {
  /** `value`, or `fallback` when undefined; throws unless a finite number within the rule. */
  number(name: string, value: unknown, fallback: number, rule?: NumberRule): number;
  /** `value` as a function, or `fallback` when undefined. */
  fn<T>(name: string, value: unknown, fallback: T): T;
  /** Throws unless `value` is a function. */
  requireFn(name: string, value: unknown): void;
  /** `value` as a non-empty string, or undefined when undefined. */
  string(name: string, value: unknown): string | undefined;
  /** `value` as a boolean, or `fallback` when undefined. */
  boolean(name: string, value: unknown, fallback: boolean): boolean;
  /** `value` if it is one of `allowed`, `fallback` when undefined. */
  oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[], fallback: T): T;
  /** Throws unless `value` is a plain object; returns it. */
  object(name: string, value: unknown): Record<string, unknown>;
  /** Throws on the first key of `value` not in `allowed`. */
  knownKeys(name: string, value: Record<string, unknown>, allowed: readonly string[]): void;
  /** Throws unless `value` is undefined or an AbortSignal. */
  signal(name: string, value: unknown): AbortSignal | undefined;
  /** Throws with `message` naming `name`. */
  fail(name: string, message: string): never;
}

function describeRule({ min = 0, max, integer }: NumberRule): string {
  const kind = integer ? 'an integer' : 'a finite number';
  return max === undefined ? `${kind} >= ${min}` : `${kind} from ${min} to ${max}`;
}

function createValidators(fail: (name: string, message: string) => never): Validators {
  const validators: Validators = {
    number(name, value, fallback, rule = {}) {
      if (value === undefined) return fallback;
      const { min = 0, max = Number.POSITIVE_INFINITY, integer = false } = rule;
      if (
        typeof value !== 'number' ||
        !Number.isFinite(value) ||
        value < min ||
        value > max ||
        (integer && !Number.isInteger(value))
      ) {
        fail(name, `Expected \`${name}\` to be ${describeRule(rule)}, got ${String(value)}`);
      }
      return value as number;
    },
    fn<T>(name: string, value: unknown, fallback: T): T {
      if (value === undefined) return fallback;
      validators.requireFn(name, value);
      return value as T;
    },
    requireFn(name, value) {
      if (typeof value !== 'function') fail(name, `Expected \`${name}\` to be a function`);
    },
    string(name, value) {
      if (value === undefined) return undefined;
      if (typeof value !== 'string' || value === '') {
        fail(name, `Expected \`${name}\` to be a non-empty string`);
      }
      return value as string;
    },
    boolean(name, value, fallback) {
      if (value === undefined) return fallback;
      if (typeof value !== 'boolean') fail(name, `Expected \`${name}\` to be true or false`);
      return value as boolean;
    },
    oneOf(name, value, allowed, fallback) {
      if (value === undefined) return fallback;
      if (!allowed.includes(value as never)) {
        fail(name, `Expected \`${name}\` to be one of ${allowed.map((a) => `'${a}'`).join(', ')}`);
      }
      return value as never;
    },
    object(name, value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        fail(name, `Expected \`${name}\` to be an object`);
      }
      return value as Record<string, unknown>;
    },
    knownKeys(name, value, allowed) {
      for (const key of Object.keys(value)) {
        if (!allowed.includes(key)) {
          const path = name ? `${name}.${key}` : key;
          const near = closest(key, allowed);
          const hint =
            near === undefined
              ? `Remove it; the known ones are ${allowed.map((a) => `\`${a}\``).join(', ')}.`
              : `Did you mean \`${name ? `${name}.${near}` : near}\`? Fix its name, or remove it.`;
          fail(path, `Unknown option \`${path}\`. ${hint}`);
        }
      }
    },
    signal(name, value) {
      if (value === undefined || value instanceof AbortSignal) return value;
      return fail(name, `Expected \`${name}\` to be an AbortSignal`);
    },
    fail,
  };
  return validators;
}

/**
 * The known name closest to `key`: the same but for case, or at most two edits away (a
 * substitution, insertion, deletion or swap of neighbours), when exactly one is that close.
 */
export function closest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameButCase = known.filter((name) => name.toLowerCase() === lower);
  if (sameButCase.length > 0) return sameButCase[0];
  let best: string | undefined;
  let bestDistance = 3;
  let ties = 0;
  for (const name of known) {
    const distance = editDistance(lower, name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
      ties = 1;
    } else if (distance === bestDistance) {
      ties += 1;
    }
  }
  return ties === 1 ? best : undefined;
}

/** Optimal string alignment distance (Levenshtein plus swaps of neighbours). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** Validators for construction options: throw {@link InvalidOptionError}. */
export const option: Validators = createValidators((name, message) => {
  // Messages that already end with what to do keep their own instruction.
  const advice = /\.$/.test(message) ? '' : `. Fix the \`${name}\` option.`;
  throw new InvalidOptionError(name, `${message}${advice}`);
});

/** Validators for per-call arguments: throw LicensingError `INVALID_ARGUMENT`. */
export const argument: Validators = createValidators((name, message) => {
  // Messages that already end with what to do keep their own instruction.
  const advice = /\.$/.test(message) ? '' : `. Fix the \`${name}\` argument.`;
  throw new LicensingError('INVALID_ARGUMENT', `${message}${advice}`);
});
