// Reading an answer's body with a ceiling (DECISIONS.md "Trust while the app runs (fourth wave)",
// bounded work): a declared length over the limit reads nothing, a stream that goes past it is
// cancelled at the first chunk that does, UTF-8 split across chunks decodes whole. On real
// `Response` objects over streams that count what was pulled.
import { describe, expect, it } from 'vitest';
import { readBoundedBody } from './read-bounded-body.js';

const encode = (text: string) => new TextEncoder().encode(text);

/** A body of `chunks`, pulled one at a time, that records pulls and a cancel. */
function streamOf(chunks: Uint8Array[], options: { cancelThrows?: boolean } = {}) {
  const seen = { pulls: 0, cancelled: false };
  const queue = [...chunks];
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        seen.pulls += 1;
        const chunk = queue.shift();
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
      cancel() {
        seen.cancelled = true;
        if (options.cancelThrows) throw new Error('cannot cancel');
      },
    },
    { highWaterMark: 0 },
  );
  return { body, seen };
}

function responseOf(chunks: Uint8Array[], headers: Record<string, string> = {}) {
  const { body, seen } = streamOf(chunks);
  return { response: new Response(body, { headers }), seen };
}

describe('readBoundedBody', () => {
  it('reads a body within the limit as UTF-8 text', async () => {
    const { response, seen } = responseOf([encode('{"keys":'), encode('[]}')]);
    expect(await readBoundedBody(response, 100)).toEqual({ text: '{"keys":[]}' });
    expect(seen.cancelled).toBe(false);
  });

  it('reads nothing of a body whose Content-Length is over the limit, and cancels it', async () => {
    const { response, seen } = responseOf([encode('x'.repeat(11))], { 'content-length': '11' });
    expect(await readBoundedBody(response, 10)).toEqual({ tooLarge: true });
    expect(seen.pulls).toBe(0);
    expect(seen.cancelled).toBe(true);
  });

  it('reads a body whose Content-Length is exactly the limit', async () => {
    const { response } = responseOf([encode('x'.repeat(10))], { 'content-length': '10' });
    expect(await readBoundedBody(response, 10)).toEqual({ text: 'x'.repeat(10) });
  });

  it('stops at the first chunk that goes past the limit, whatever the Content-Length says', async () => {
    const chunks = [
      encode('a'.repeat(4)),
      encode('b'.repeat(4)),
      encode('c'.repeat(4)),
      encode('d'),
    ];
    for (const headers of [{}, { 'content-length': '5' }, { 'content-length': 'many' }]) {
      const { response, seen } = responseOf(chunks, headers);
      expect(await readBoundedBody(response, 10)).toEqual({ tooLarge: true });
      // Three chunks read (12 bytes > 10), the fourth never pulled.
      expect(seen.pulls).toBe(3);
      expect(seen.cancelled).toBe(true);
    }
  });

  it('reads a stream of exactly the limit, and refuses one byte more', async () => {
    const exact = responseOf([encode('a'.repeat(6)), encode('b'.repeat(4))]);
    expect(await readBoundedBody(exact.response, 10)).toEqual({
      text: `${'a'.repeat(6)}${'b'.repeat(4)}`,
    });
    expect(exact.seen.cancelled).toBe(false);
    const over = responseOf([encode('a'.repeat(6)), encode('b'.repeat(5))]);
    expect(await readBoundedBody(over.response, 10)).toEqual({ tooLarge: true });
  });

  it('counts bytes, not characters', async () => {
    // Five characters of two bytes each.
    const text = 'ééééé';
    expect(await readBoundedBody(responseOf([encode(text)]).response, 10)).toEqual({ text });
    expect(await readBoundedBody(responseOf([encode(text)]).response, 9)).toEqual({
      tooLarge: true,
    });
  });

  it('decodes a character split across chunks whole', async () => {
    const bytes = encode('é€😀');
    // Split inside each multi-byte sequence: 2 + 3 + 4 bytes.
    const chunks = [bytes.slice(0, 1), bytes.slice(1, 3), bytes.slice(3, 7), bytes.slice(7)];
    expect(await readBoundedBody(responseOf(chunks).response, 100)).toEqual({ text: 'é€😀' });
  });

  it('ends a body cut inside a character with a replacement character', async () => {
    const bytes = encode('ok é');
    const cut = bytes.slice(0, bytes.length - 1);
    expect(await readBoundedBody(responseOf([cut]).response, 100)).toEqual({ text: 'ok \uFFFD' });
  });

  it('reads an answer without a body as empty text', async () => {
    expect(await readBoundedBody(new Response(null), 10)).toEqual({ text: '' });
    expect(await readBoundedBody(new Response(null, { status: 204 }), 0)).toEqual({ text: '' });
    // A Content-Length over the limit on an answer without a body: still too large.
    const declared = new Response(null, { headers: { 'content-length': '11' } });
    expect(await readBoundedBody(declared, 10)).toEqual({ tooLarge: true });
  });

  it('reads an empty stream as empty text', async () => {
    const { response, seen } = responseOf([]);
    expect(await readBoundedBody(response, 0)).toEqual({ text: '' });
    expect(seen.pulls).toBe(1);
  });

  it('answers too large even when cancelling the body fails', async () => {
    const declared = streamOf([encode('x'.repeat(11))], { cancelThrows: true });
    const byLength = new Response(declared.body, { headers: { 'content-length': '11' } });
    expect(await readBoundedBody(byLength, 10)).toEqual({ tooLarge: true });
    expect(declared.seen.cancelled).toBe(true);
    const streamed = streamOf([encode('x'.repeat(11))], { cancelThrows: true });
    expect(await readBoundedBody(new Response(streamed.body), 10)).toEqual({ tooLarge: true });
    expect(streamed.seen.cancelled).toBe(true);
  });
});
