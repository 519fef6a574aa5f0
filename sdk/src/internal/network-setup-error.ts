/**
 * The SDK's default fetch cannot make a request on this runtime as the client is set up: its
 * network module (for proxies and `tls.ca`) or undici could not be loaded, e.g. in an app bundled
 * into one file. Thrown by the fence (platform/network-fetch.ts) and the module it loads; the one
 * HTTP → error mapping (transport/classify-outcome.ts) finds it by `name` (the CommonJS build has
 * a copy of this class of its own) and makes it an `INVALID_ARGUMENT` that does not fail over: a
 * setup to fix, not an outage. Internal.
 */
export class NetworkSetupError extends Error {
  override name = 'NetworkSetupError';
}
