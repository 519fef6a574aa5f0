// Test helper: fast-check generators of lease store contents an adversary (or a broken disk)
// could leave: random text, random JSON, and a genuine store document mutated (fields deleted
// or retyped, tokens swapped, truncated or replaced, numbers pushed out of range, key lists
// edited), written as text with number literals JSON.stringify never writes. Not a test file.
import fc from 'fast-check';

type Json = unknown;
type Path = Array<string | number>;

/** The material a mutation draws on: the genuine document and tokens that are not its own. */
export interface StoreMaterial {
  /** A genuine lease store document (version 2), as JSON text. */
  document: string;
  /** Signed tokens that must never come back as this device's leases (a release answer, another
   * device's lease, a stranger-signed lease, a lease of another store). */
  foreignTokens: readonly string[];
  /** JWKs that must never be trusted (a stranger's key). */
  foreignKeys: readonly Record<string, unknown>[];
}

/** One edit of a store document; `at` and `n` pick among the candidates (modulo their count). */
export type StoreMutation =
  | { kind: 'delete'; at: number }
  | { kind: 'retype'; at: number; value: Json }
  | { kind: 'number'; at: number; value: Json }
  | {
      kind: 'token';
      at: number;
      how: 'swap' | 'truncate' | 'foreign' | 'append' | 'segments';
      n: number;
      suffix: string;
    }
  | {
      kind: 'key';
      at: number;
      how: 'remove' | 'duplicate' | 'swap-services' | 'field' | 'foreign';
      field: string;
      value: Json;
      n: number;
    }
  | { kind: 'entry'; at: number; how: 'duplicate' | 'remove' | 'item' | 'servedBy' | 'reverse' };

/** A number literal JSON.stringify never writes (or not this way), put in place of the k-th. */
export interface LiteralEdit {
  at: number;
  literal: string;
}

const numbers = fc.constantFrom<Json>(
  1e308,
  -1e308,
  9e15,
  8.64e15,
  8.64e15 + 1,
  2 ** 53,
  -1,
  -0.5,
  0,
  1e-300,
  86_400_001,
  '12',
  null,
  true,
);

/** Arbitrary edits of a store document. */
export const storeMutation: fc.Arbitrary<StoreMutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('retype' as const),
    at: fc.nat(),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
  fc.record({ kind: fc.constant('number' as const), at: fc.nat(), value: numbers }),
  fc.record({
    kind: fc.constant('token' as const),
    at: fc.nat(),
    how: fc.constantFrom('swap', 'truncate', 'foreign', 'append', 'segments'),
    n: fc.nat(),
    suffix: fc.constantFrom('=', '==', '!', '.', 'A', ' ', '.x', '\n'),
  }),
  fc.record({
    kind: fc.constant('key' as const),
    at: fc.nat(),
    how: fc.constantFrom('remove', 'duplicate', 'swap-services', 'field', 'foreign'),
    field: fc.constantFrom('kid', 'kty', 'alg', 'use', 'n', 'e', 'x5c'),
    value: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constantFrom('', 'RS512', 'EC', 'AQAB')),
    n: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('entry' as const),
    at: fc.nat(),
    how: fc.constantFrom('duplicate', 'remove', 'item', 'servedBy', 'reverse'),
  }),
);

/** Number literals in place of one in the text. */
export const literalEdit: fc.Arbitrary<LiteralEdit> = fc.record({
  at: fc.nat(),
  literal: fc.constantFrom('1e999', '-1e999', 'NaN', 'Infinity', '1e-999', '-0', '1E3', '0.0'),
});

function isContainer(value: Json): value is Record<string | number, Json> {
  return typeof value === 'object' && value !== null;
}

/** Every path in `value` (containers and leaves), depth first. */
function pathsOf(value: Json, prefix: Path = []): Path[] {
  if (!isContainer(value)) return [];
  return Object.keys(value).flatMap((key) => {
    const step = Array.isArray(value) ? Number(key) : key;
    const path = [...prefix, step];
    return [path, ...pathsOf((value as Record<string, Json>)[key], path)];
  });
}

function parentOf(root: Json, path: Path): Record<string | number, Json> | undefined {
  let node: Json = root;
  for (const step of path.slice(0, -1)) {
    if (!isContainer(node)) return undefined;
    node = (node as Record<string | number, Json>)[step];
  }
  return isContainer(node) ? (node as Record<string | number, Json>) : undefined;
}

function pick<T>(list: readonly T[], at: number): T | undefined {
  return list.length === 0 ? undefined : list[at % list.length];
}

function leaseEntries(document: Json): Array<Record<string, Json>> {
  const leases = isContainer(document) ? (document as Record<string, Json>).leases : undefined;
  return Array.isArray(leases) ? leases.filter(isContainer) : [];
}

function keyLists(document: Json): Array<Array<Json>> {
  const keys = isContainer(document) ? (document as Record<string, Json>).keys : undefined;
  if (!isContainer(keys)) return [];
  return Object.values(keys).filter(Array.isArray);
}

/** Applies `mutation` to `document` (in place). */
function apply(document: Json, mutation: StoreMutation, material: StoreMaterial): void {
  switch (mutation.kind) {
    case 'delete':
    case 'retype': {
      const path = pick(pathsOf(document), mutation.at);
      const parent = path && parentOf(document, path);
      if (!path || !parent) return;
      const last = path.at(-1)!;
      if (mutation.kind === 'retype') parent[last] = mutation.value;
      else if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      return;
    }
    case 'number': {
      const leaves = pathsOf(document).filter((path) => {
        const parent = parentOf(document, path);
        return typeof parent?.[path.at(-1)!] === 'number';
      });
      const path = pick(leaves, mutation.at);
      if (path) parentOf(document, path)![path.at(-1)!] = mutation.value;
      return;
    }
    case 'token': {
      const entries = leaseEntries(document);
      const entry = pick(entries, mutation.at);
      if (!entry || typeof entry.token !== 'string') return;
      const token = entry.token;
      switch (mutation.how) {
        case 'swap': {
          const other = pick(entries, mutation.n);
          if (other) [entry.token, other.token] = [other.token, token];
          return;
        }
        case 'truncate':
          entry.token = token.slice(0, mutation.n % (token.length + 1));
          return;
        case 'foreign':
          entry.token = pick(material.foreignTokens, mutation.n) ?? token;
          return;
        case 'append':
          entry.token = `${token}${mutation.suffix}`;
          return;
        case 'segments': {
          const parts = token.split('.');
          const i = mutation.n % parts.length;
          parts[i] = `${parts[i]}${mutation.suffix}`;
          entry.token = mutation.n % 2 === 0 ? parts.join('.') : parts.reverse().join('.');
          return;
        }
      }
      return;
    }
    case 'key': {
      const lists = keyLists(document);
      const list = pick(lists, mutation.at);
      if (!list) return;
      switch (mutation.how) {
        case 'remove':
          list.splice(mutation.n % Math.max(list.length, 1), 1);
          return;
        case 'duplicate': {
          const key = pick(list, mutation.n);
          if (key !== undefined) list.push(structuredClone(key));
          return;
        }
        case 'swap-services': {
          const keys = (document as Record<string, Record<string, Json>>).keys!;
          [keys.main, keys.standby] = [keys.standby, keys.main];
          return;
        }
        case 'field': {
          const key = pick(list, mutation.n);
          if (isContainer(key)) (key as Record<string, Json>)[mutation.field] = mutation.value;
          return;
        }
        case 'foreign': {
          const key = pick(material.foreignKeys, mutation.n);
          if (key) list.push({ ...key, ...(mutation.n % 2 === 0 ? {} : { kid: pickKid(lists) }) });
          return;
        }
      }
      return;
    }
    case 'entry': {
      const leases = isContainer(document) ? (document as Record<string, Json>).leases : undefined;
      if (!Array.isArray(leases) || leases.length === 0) return;
      const i = mutation.at % leases.length;
      const entry = leases[i];
      switch (mutation.how) {
        case 'duplicate':
          leases.push(structuredClone(entry));
          return;
        case 'remove':
          leases.splice(i, 1);
          return;
        case 'reverse':
          leases.reverse();
          return;
        case 'item': {
          const other = leases[(i + 1) % leases.length];
          if (isContainer(entry) && isContainer(other)) {
            (entry as Record<string, Json>).item = (other as Record<string, Json>).item;
          }
          return;
        }
        case 'servedBy':
          if (isContainer(entry)) {
            const served = (entry as Record<string, Json>).servedBy;
            (entry as Record<string, Json>).servedBy = served === 'main' ? 'standby' : 'main';
          }
          return;
      }
    }
  }
}

/** A kid of a genuine key (a foreign key planted under it). */
function pickKid(lists: Array<Array<Json>>): Json {
  for (const list of lists) {
    for (const key of list) if (isContainer(key)) return (key as Record<string, Json>).kid;
  }
  return 'none';
}

/** Replaces the k-th number literal of `text` (outside strings: JSON numbers only follow `:`,
 * `[` or `,`) with `edit.literal`. */
function replaceLiteral(text: string, edit: LiteralEdit): string {
  const matches = [...text.matchAll(/([:[,])(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=[,\]}])/g)];
  const match = pick(matches, edit.at);
  if (!match || match.index === undefined) return text;
  const start = match.index + match[1]!.length;
  return `${text.slice(0, start)}${edit.literal}${text.slice(start + match[2]!.length)}`;
}

/**
 * Arbitrary store texts: mostly the genuine document under 1 to 4 mutations (and sometimes a
 * number literal JSON.stringify never writes), else random JSON or random text.
 */
export function storeText(material: StoreMaterial): fc.Arbitrary<string> {
  const mutated = fc
    .record({
      mutations: fc.array(storeMutation, { minLength: 1, maxLength: 4 }),
      literal: fc.oneof(
        { arbitrary: fc.constant(null), weight: 3 },
        { arbitrary: literalEdit, weight: 1 },
      ),
      bom: fc.boolean(),
    })
    .map(({ mutations, literal, bom }) => {
      const document = JSON.parse(material.document) as Json;
      for (const mutation of mutations) apply(document, mutation, material);
      const text = JSON.stringify(document) ?? 'null';
      return `${bom ? '\uFEFF' : ''}${literal ? replaceLiteral(text, literal) : text}`;
    });
  return fc.oneof(
    { arbitrary: mutated, weight: 8 },
    { arbitrary: fc.json({ maxDepth: 3 }), weight: 1 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 1 },
  );
}
