import { passthrough } from 'msw';

/**
 * What a handler does with a request it lets through (a flaky service's good answers, a
 * delayed answer, a standby's calls before it is switched off):
 *
 * - `'passthrough'` (the default everywhere): send it to the real server, e.g. a mock server
 *   started on a free port. With `onUnhandledRequest: 'error'` this is what keeps the real
 *   server reachable.
 * - `'next'`: let the next matching msw handler answer (one you put after these handlers).
 * - a function: answer with the `Response` it returns.
 */
export type PassBehaviour =
  | 'passthrough'
  | 'next'
  | ((request: Request) => Response | Promise<Response>);

/** Applies `pass` to `request`: a response, msw's passthrough marker, or undefined (next). */
export async function answerPass(
  pass: PassBehaviour,
  request: Request,
): Promise<Response | undefined> {
  if (pass === 'passthrough') return passthrough();
  if (pass === 'next') return undefined;
  return pass(request);
}
