// A proxy URL as curl reads it (`-x`, `HTTPS_PROXY`): used to check the `proxy` option when a
// client is made, and by the Node fetch (platform/node-network.ts) to reach the proxy.
/** A proxy URL, parsed. */
export interface ProxySetting {
  /** `scheme://host:port` without credentials: where requests go, and what messages name. */
  origin: string;
  /** The user name and password of `user:password@`, decoded, when the URL carries them. */
  credentials: string | undefined;
}

/** curl's default port of a proxy URL that names none: 1080 for http, 443 for https. */
const DEFAULT_PORTS: Record<string, string> = { 'http:': '1080', 'https:': '443' };

/**
 * Parses a proxy URL as curl does: no scheme means `http://`, no port means 1080 (443 for an
 * `https://` proxy), `user:password@` (percent-encoded) is kept for Basic authentication. Throws a
 * TypeError saying what is wrong: not a URL, a scheme other than http or https (SOCKS), or a
 * path, query or fragment.
 */
export function parseProxyUrl(text: string): ProxySetting {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TypeError('it is not a URL (expected http://host:port)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`${url.protocol} proxies are not supported (use an http:// proxy)`);
  }
  if (url.hostname === '' || url.pathname.length > 1 || url.search || url.hash) {
    throw new TypeError('expected http://host:port, with no path, query or fragment');
  }
  // `new URL` drops a port equal to the scheme's default: read what the text said.
  const authority = withScheme.slice(withScheme.indexOf('//') + 2).split(/[/?#]/)[0] ?? '';
  const explicitPort = /:(\d+)$/.exec(authority.slice(authority.lastIndexOf('@') + 1))?.[1];
  const port = explicitPort === undefined ? DEFAULT_PORTS[url.protocol] : String(+explicitPort);
  const credentials =
    url.username === '' && url.password === ''
      ? undefined
      : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { origin: `${url.protocol}//${url.hostname}:${port}`, credentials };
}
