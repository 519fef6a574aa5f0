// Test helper: the global fetch replaced by a recorder, for tests of which requests the SDK's
// default fetch hands to it. Undo with `vi.unstubAllGlobals()`. Not a test file.
import { vi } from 'vitest';

/** Replaces the global fetch with one that records the URL of each call and answers 204. */
export function recordGlobalFetch(): string[] {
  const calls: string[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
    calls.push(String(input instanceof Request ? input.url : input));
    return new Response(null, { status: 204 });
  });
  return calls;
}
