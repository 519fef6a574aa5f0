/**
 * Parses an expected-failures file: one check id a line; `#` starts a comment (whole line or
 * after an id); blank lines are ignored. Throws a `TypeError` naming the line for an id that
 * names no check, so a typo cannot silently pin nothing.
 *
 * @param text The file's contents.
 * @param knownIds Every check's id.
 * @example
 * const expected = parseExpectedFailures('# ticket 12\nstandby.auth.id-token-grace\n', ids);
 */
export function parseExpectedFailures(text: string, knownIds: ReadonlySet<string>): Set<string> {
  const ids = new Set<string>();
  text.split(/\r?\n/).forEach((line, index) => {
    const id = line.replace(/#.*/, '').trim();
    if (id === '') return;
    if (!knownIds.has(id)) {
      throw new TypeError(
        `expected-failures line ${index + 1}: "${id}" is not a check id (see --list)`,
      );
    }
    ids.add(id);
  });
  return ids;
}
