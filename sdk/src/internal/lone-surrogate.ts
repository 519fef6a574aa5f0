// Text the wire can carry: `encodeURIComponent` throws a URIError for a lone UTF-16 surrogate, so
// a value sent in a query (a hardware id, a version, an item name) is checked for one first.

/**
 * The index of the first lone surrogate in `text` (half of a UTF-16 pair without its other half),
 * or -1 when the text is well formed.
 *
 * @example
 * loneSurrogateAt('pc-\ud800'); // 3
 */
export function loneSurrogateAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i += 1;
      continue;
    }
    return i;
  }
  return -1;
}
