import { option } from '../internal/validate-option.js';

/**
 * A service's base URL option: an absolute http(s) URL without query or fragment, returned
 * without trailing slashes.
 *
 * @throws InvalidOptionError naming `name`.
 */
export function resolveServiceUrl(name: string, value: unknown): string {
  if (typeof value !== 'string') option.fail(name, `Expected \`${name}\` to be a URL string`);
  let url: URL;
  try {
    url = new URL(value as string);
  } catch {
    return option.fail(
      name,
      `Expected \`${name}\` to be an absolute URL, got ${JSON.stringify(value)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    option.fail(name, `Expected \`${name}\` to be an http(s) URL`);
  }
  if (url.search || url.hash) option.fail(name, `Expected \`${name}\` without query or fragment`);
  return url.href.replace(/\/+$/, '');
}
