// Test helper: a network that lies. msw lets every request through to the real mock server
// unless a handler rewrites the real answer (a stripped or moved `Date`, a swapped JWK set, the
// token of another request). Not a test file itself.
import { bypass } from 'msw';
import { setupServer } from 'msw/node';

/** An msw server that passes every unhandled request to the real network. Call `listen()`. */
export function createLyingNetwork() {
  const server = setupServer();
  const listen = server.listen.bind(server);
  return Object.assign(server, {
    listen: () => listen({ onUnhandledRequest: 'bypass' }),
  });
}

/**
 * The real answer to `request` from behind msw; with `url`, the real answer to another request
 * sent with the same method and headers (e.g. a release asked with the caller's ID token).
 */
export function fetchReal(request: Request, url?: string): Promise<Response> {
  if (url === undefined) return fetch(bypass(request));
  return fetch(bypass(url, { method: request.method, headers: request.headers }));
}

/** A copy of `response` with `body` and the headers `edit` leaves. */
export function rewrite(
  response: Response,
  body: string,
  edit: (headers: Headers) => void = () => {},
): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  headers.delete('transfer-encoding');
  edit(headers);
  return new Response(body, { status: response.status, headers });
}

/** The `Date` header value `shiftMs` off the answer's own (the services' clock, moved). */
export function shiftedDate(response: Response, shiftMs: number): string {
  const date = response.headers.get('date');
  if (date === null) throw new Error('the real answer has no Date header');
  return new Date(Date.parse(date) + shiftMs).toUTCString();
}

/** A `fetch` for a client that must not reach the network: every request throws. */
export const offline: typeof fetch = async (input) => {
  throw new Error(`no network offline: ${String(input)}`);
};
