// URL helpers shared by the handler factories. Private to the testing kit.
import { argument } from '../../internal/validate-option.js';

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

/**
 * A base URL argument of the kit's newer functions: an absolute http(s) URL without query or
 * fragment, returned without trailing slashes.
 *
 * @throws LicensingError `INVALID_ARGUMENT` naming `name`.
 */
export function readBaseUrl(name: string, value: unknown): string {
  if (typeof value !== 'string' && !(value instanceof URL)) {
    return argument.fail(name, `Expected \`${name}\` to be a base URL (a string or URL)`);
  }
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return argument.fail(
      name,
      `Expected \`${name}\` to be an absolute URL, got ${JSON.stringify(String(value))}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    argument.fail(name, `Expected \`${name}\` to be an http(s) URL, got ${url.href}`);
  }
  if (url.search || url.hash) argument.fail(name, `Expected \`${name}\` without query or fragment`);
  return url.href.replace(/\/+$/, '');
}
