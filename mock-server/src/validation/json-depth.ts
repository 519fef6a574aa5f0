/**
 * The deepest nesting any JSON the server parses may have, whatever `limits.maxJsonDepth` says:
 * well below the depth at which `JSON.stringify` overflows Node's default stack (about 4 500
 * levels deep inside the event write queue).
 */
export const JSON_DEPTH_CAP = 1000;

/**
 * How deep JSON text nests: the largest number of containers (`{` or `[`) open at once, so
 * `{"a":{"b":[1]}}` is 3 and a scalar is 0. A single pass over the text, with no recursion and
 * no parse, so input of any depth is measured safely before `JSON.parse` and `JSON.stringify`
 * (which recurses and overflows the stack on deep values) ever see it. Brackets inside strings
 * do not count. The scan stops early once the depth exceeds `stopAbove`.
 *
 * @example
 * measureJsonDepth('{"data":{"d":1}}'); // 2
 */
export function measureJsonDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}
