/**
 * jose, loaded with the first token to verify rather than at start (about 20 ms of a cold start,
 * decision 28). One import for the process: an `import()` per request costs a loader round trip
 * and its garbage on every call, which a server holding 10 000 long polls pays in memory (bench
 * row 5: 12-16 KiB per parked poll with an import per read, 8 KiB with this).
 *
 * @example
 * const { jwtVerify } = await loadJose();
 */
let jose: Promise<typeof import('jose')> | undefined;

export function loadJose(): Promise<typeof import('jose')> {
  jose ??= import('jose');
  return jose;
}
