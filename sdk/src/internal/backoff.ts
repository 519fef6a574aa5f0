/** Parameters of {@link computeBackoffDelay}. */
export interface BackoffOptions {
  /** Delay before the first retry, before jitter, in ms. */
  baseMs: number;
  /** Upper bound of any delay, in ms. */
  maxMs: number;
  /** Random source in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/**
 * Delay before retry number `retry` (0 for the first): exponential `baseMs * 2^retry`, capped at
 * `maxMs`, with "equal jitter" (half fixed, half random) so retries spread out but never collapse
 * to zero. Always within `[0, maxMs]`.
 */
export function computeBackoffDelay(retry: number, options: BackoffOptions): number {
  const random = options.random ?? Math.random;
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, retry));
  const half = ceiling / 2;
  return Math.round(half + random() * half);
}
