/** Options of {@link ProxyRouteError}. */
export interface ProxyRouteErrorOptions {
  cause: unknown;
  /** The proxy's refusal, when it answered one (407, 403, or 502 to a CONNECT). */
  status?: number | undefined;
  /** The proxy setting itself cannot be used (not a URL, an unsupported scheme, no undici). */
  unusable?: boolean;
}

/**
 * A request sent through an HTTP proxy failed; `cause` is the error of the exchange. Thrown by
 * the SDK's default fetch on Node (internal/platform/node-network.ts), so the one HTTP → error
 * mapping (transport/classify-outcome.ts) can tell a proxy in the way from a service that is
 * down; it finds it by `name`, since the CommonJS build's copy of this class is another one.
 * Internal: callers see the `LicensingError` built from it.
 */
export class ProxyRouteError extends Error {
  override name = 'ProxyRouteError';
  /** The proxy's URL without its credentials, e.g. `http://proxy.example:3128`. */
  readonly proxy: string;
  /** The proxy's refusal, when it answered one. */
  readonly status: number | undefined;
  /** True when the proxy setting itself cannot be used. */
  readonly unusable: boolean;

  constructor(proxy: string, options: ProxyRouteErrorOptions) {
    super(`request through the proxy ${proxy} failed`, { cause: options.cause });
    this.proxy = proxy;
    this.status = options.status;
    this.unusable = options.unusable ?? false;
  }
}
