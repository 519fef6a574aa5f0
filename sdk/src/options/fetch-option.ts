import { createDefaultFetch } from '../internal/platform/network-fetch.js';
import { parseProxyUrl } from '../internal/proxy-url.js';
import { option } from '../internal/validate-option.js';

/**
 * Trust anchors for HTTPS to the services, beside Node's own (option `tls` of both clients; Node
 * only, browsers ignore it).
 */
export interface TlsOptions {
  /**
   * CA certificates, PEM (a string may hold several), trusted for HTTPS to the services and to an
   * https proxy in addition to Node's own roots and `NODE_EXTRA_CA_CERTS`: e.g. the CA of a
   * corporate network that inspects TLS.
   */
  ca: string | string[];
}

/** The network options every client shares: `fetch`, `proxy` and `tls`. */
export interface NetworkOptionValues {
  fetch?: unknown;
  proxy?: unknown;
  tls?: unknown;
}

function resolveProxy(value: unknown): string | false | undefined {
  if (value === undefined || value === false) return value;
  if (typeof value !== 'string' || value === '') {
    return option.fail('proxy', 'Expected `proxy` to be false or a proxy URL (http://host:port)');
  }
  try {
    parseProxyUrl(value);
  } catch (error) {
    option.fail('proxy', `Expected \`proxy\` to be a proxy URL: ${(error as Error).message}`);
  }
  return value;
}

function resolveCa(value: unknown): string[] {
  if (value === undefined) return [];
  const tls = option.object('tls', value);
  option.knownKeys('tls', tls, ['ca']);
  const list = Array.isArray(tls.ca) ? tls.ca : [tls.ca];
  if (list.length === 0) option.fail('tls.ca', 'Expected `tls.ca` to hold at least one PEM');
  return list.map((pem, i) => {
    if (typeof pem !== 'string' || !pem.includes('-----BEGIN CERTIFICATE-----')) {
      const name = Array.isArray(tls.ca) ? `tls.ca[${i}]` : 'tls.ca';
      option.fail(
        name,
        `Expected \`${name}\` to be a PEM certificate (-----BEGIN CERTIFICATE-----)`,
      );
    }
    return pem as string;
  });
}

/**
 * The `fetch` a client uses, always invoked as a plain function looked up at call time: a
 * browser's `fetch` called as a method of another object throws "Illegal invocation", and a
 * `fetch` patched after the client was created (msw, instrumentation) must still be used.
 *
 * An app's own `fetch` is used as given; a `proxy` URL or `tls` beside it is an error, since the SDK
 * would not apply them. Without one, the default: on Node, proxies from the environment (as curl
 * reads them) or `proxy`, and `tls.ca` (internal/platform/network-fetch.ts); elsewhere the
 * global `fetch`.
 */
export function resolveFetch(o: NetworkOptionValues): typeof fetch {
  const proxy = resolveProxy(o.proxy);
  const ca = resolveCa(o.tls);
  if (o.fetch === undefined) return createDefaultFetch({ proxy, ca });
  option.requireFn('fetch', o.fetch);
  for (const name of ['proxy', 'tls'] as const) {
    // `proxy: false` asks for nothing the app's fetch does not already do.
    if (o[name] !== undefined && o[name] !== false) {
      option.fail(
        name,
        `\`${name}\` applies to the SDK's default fetch only: configure it on your own \`fetch\`, or leave \`fetch\` out`,
      );
    }
  }
  const given = o.fetch as typeof fetch;
  return (input, init) => given(input, init);
}
