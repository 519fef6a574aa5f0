// Reading an answer's body with a ceiling (DECISIONS.md "Trust while the app runs (fourth
// wave)", bounded work): a body over the limit is not read whole, whatever the service sends.

/** A body as read: its text, or how far it went past the limit. */
export type BoundedBody = { text: string } | { tooLarge: true };

/**
 * Reads `response`'s body as UTF-8 text, at most `maxBytes` of it: a `Content-Length` over the
 * limit stops before reading anything, and a stream that goes past it is cancelled at the first
 * chunk that does, so no more than one chunk beyond the limit is ever held.
 *
 * @example
 * const body = await readBoundedBody(response, 1_048_576);
 * if ('tooLarge' in body) throw outage();
 */
export async function readBoundedBody(response: Response, maxBytes: number): Promise<BoundedBody> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { tooLarge: true };
  }
  if (!response.body) return { text: await response.text() };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.byteLength;
    if (read > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { tooLarge: true };
    }
    text += decoder.decode(value, { stream: true });
  }
  return { text: text + decoder.decode() };
}
