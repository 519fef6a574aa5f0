// Which HTTP proxy a request takes, read from the environment as curl reads it (curl's
// lib/url.c `detect_proxy` and lib/noproxy.c): the variable of the target's scheme, the lower-case
// name first (`https_proxy`, then `HTTPS_PROXY`; `http_proxy`, then `HTTP_PROXY`), and
// `no_proxy`, then `NO_PROXY`. Pure functions: the Node fetch (platform/node-network.ts) hands
// them `process.env`. Why not undici's EnvHttpProxyAgent: docs/decisions/0030-proxies-on-node.md.

/** The bytes of a dotted IPv4 address as one number, or undefined when it is not one. */
function ipv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || +part > 255)) {
    return undefined;
  }
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

/** curl's match of one `NO_PROXY` entry against an IPv4 host: exact, or `a.b.c.d/bits`. */
function matchesIpv4(host: number, entry: string): boolean {
  const [address = '', bitsText] = entry.split('/');
  const network = ipv4(address);
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  if (network === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  // 2^(32 - bits) addresses per network; integer division keeps it exact for every width.
  const size = 2 ** (32 - bits);
  return Math.floor(host / size) === Math.floor(network / size);
}

/** An IPv6 address (brackets optional) in the form `URL` gives it, or '' when it is not one. */
function normalizeIpv6(text: string): string {
  try {
    return new URL(`http://[${text.replace(/^\[(.*)\]$/, '$1')}]`).hostname.slice(1, -1);
  } catch {
    return '';
  }
}

/**
 * True when `hostname` is listed in `noProxy` as curl reads the list: `*` alone matches every
 * host; entries are separated by commas or blanks; a name matches itself and its subdomains
 * (`example.com` and `.example.com` both match `example.com` and `a.example.com`, never
 * `notexample.com`), case-insensitively, trailing dots ignored; an IPv4 address matches exactly
 * or by CIDR (`10.0.0.0/8`); an IPv6 address matches the same address (brackets optional; no CIDR). Ports are not
 * part of an entry (curl ignores entries with one).
 */
export function matchesNoProxy(hostname: string, noProxy: string): boolean {
  const list = noProxy.trim();
  if (list === '') return false;
  if (list === '*') return true;
  const isIpv6 = hostname.includes(':');
  const host = isIpv6 ? normalizeIpv6(hostname) : hostname.toLowerCase().replace(/\.$/, '');
  const address = isIpv6 ? undefined : ipv4(host);
  for (const raw of list.toLowerCase().split(/[\s,]+/)) {
    if (raw === '') continue;
    if (address !== undefined) {
      if (matchesIpv4(address, raw)) return true;
    } else if (isIpv6) {
      if (normalizeIpv6(raw) === host) return true;
    } else {
      const entry = raw.replace(/\.$/, '').replace(/^\./, '');
      if (entry === '') continue;
      if (host === entry || host.endsWith(`.${entry}`)) return true;
    }
  }
  return false;
}

/** The first of `names` that is set (even to ''), as curl prefers the lower-case name. */
function pick(env: Record<string, string | undefined>, lower: string): string | undefined {
  return env[lower] ?? env[lower.toUpperCase()];
}

/**
 * The proxy curl would take to `url` given `env`: `https_proxy`/`HTTPS_PROXY` for an https URL,
 * `http_proxy`/`HTTP_PROXY` for an http one (an https URL never falls back to `HTTP_PROXY`), unless
 * `no_proxy`/`NO_PROXY` lists the host. Undefined: connect directly.
 */
export function proxyFromEnvironment(
  url: URL,
  env: Record<string, string | undefined>,
): string | undefined {
  const scheme = url.protocol === 'https:' ? 'https' : url.protocol === 'http:' ? 'http' : '';
  if (scheme === '') return undefined;
  const proxy = pick(env, `${scheme}_proxy`)?.trim();
  if (!proxy) return undefined;
  return matchesNoProxy(url.hostname, pick(env, 'no_proxy') ?? '') ? undefined : proxy;
}
