// URL helpers shared by the handler factories. Private to the testing kit.

/** A base URL without its trailing slash, so `${base}/enabled` never doubles one. */
export function trimBase(baseUrl: string | URL): string {
  const text = String(baseUrl);
  if (!/^https?:\/\//i.test(text)) {
    throw new TypeError(`Expected an absolute http(s) base URL, got ${JSON.stringify(text)}`);
  }
  return text.replace(/\/+$/, '');
}

/**
 * msw URL patterns for `paths` under `baseUrl`. A path of `'*'` (the default) stands for
 * every route of the service.
 */
export function routePatterns(baseUrl: string | URL, paths: readonly string[] = ['*']): string[] {
  const base = trimBase(baseUrl);
  return paths.map((path) => {
    if (path === '*') return `${base}/*`;
    return `${base}${path.startsWith('/') ? path : `/${path}`}`;
  });
}

/** The path of `url` relative to `baseUrl` (e.g. `/authz/.jwt`), or undefined when outside it. */
export function routeOf(baseUrl: string, url: string): string | undefined {
  const base = new URL(baseUrl);
  const target = new URL(url);
  if (base.origin !== target.origin) return undefined;
  const basePath = base.pathname.replace(/\/+$/, '');
  if (target.pathname !== basePath && !target.pathname.startsWith(`${basePath}/`)) return undefined;
  return target.pathname.slice(basePath.length) || '/';
}
