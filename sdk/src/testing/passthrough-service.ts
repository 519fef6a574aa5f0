import { type HttpHandler, http, passthrough } from 'msw';
import { routePatterns } from './internal/service-url.js';

/**
 * Handlers that send every request under `baseUrl` to the real server. With
 * `onUnhandledRequest: 'error'`, this is how a test keeps a real mock server (its standby, its
 * ID-token issuer) reachable while msw breaks only the main service.
 *
 * @param baseUrl - the service's base URL, e.g. `server.info.standbyUrl`.
 * @example
 * const server = setupServer(...passthroughService(info.idpUrl), ...passthroughService(info.standbyUrl));
 */
export function passthroughService(baseUrl: string | URL): HttpHandler[] {
  return routePatterns(baseUrl).map((pattern) => http.all(pattern, () => passthrough()));
}
