import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../errors.js';
import { resolveEventClientOptions } from './event-client.js';
import { resolveFetch } from './fetch-option.js';
import { type LicensingClientOptions, resolveLicensingClientOptions } from './licensing-client.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const ROOT = { pem: CA };

const licensing = (extra: Record<string, unknown>) =>
  resolveLicensingClientOptions({
    mainUrl: 'https://main.example',
    standbyUrl: 'https://standby.example',
    auth: { serviceKeyHash: 'a'.repeat(64) },
    trust: { rootCertificates: [ROOT] },
    ...extra,
  } as LicensingClientOptions);

function optionError(run: () => unknown): InvalidOptionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError);
    return error as InvalidOptionError;
  }
  throw new Error('expected an InvalidOptionError');
}

describe('the proxy, tls and fetch options', () => {
  it('accepts a proxy URL (with credentials), false, and tls.ca as one PEM or a list', () => {
    expect(typeof licensing({ proxy: 'http://user:pass@proxy.example:3128' }).fetch).toBe(
      'function',
    );
    expect(typeof licensing({ proxy: false, tls: { ca: CA } }).fetch).toBe('function');
    expect(typeof licensing({ tls: { ca: [CA, CA] } }).fetch).toBe('function');
    expect(
      typeof resolveEventClientOptions({
        eventUrl: 'https://events.example',
        proxy: 'proxy.example:8080',
        tls: { ca: CA },
      }).fetch,
    ).toBe('function');
  });

  it.each([
    [{ proxy: 'socks5://proxy:1080' }, 'proxy', /socks5: proxies are not supported/],
    [{ proxy: 'http://proxy:3128/some/path' }, 'proxy', /no path/],
    [{ proxy: true }, 'proxy', /false or a proxy URL/],
    [{ proxy: '' }, 'proxy', /false or a proxy URL/],
    [{ tls: { ca: 'not a certificate' } }, 'tls.ca', /PEM certificate/],
    [{ tls: { ca: [CA, 42] } }, 'tls.ca[1]', /PEM certificate/],
    [{ tls: { ca: [] } }, 'tls.ca', /at least one PEM/],
    [{ tls: { ca: CA, rejectUnauthorized: false } }, 'tls.rejectUnauthorized', /Unknown|unknown/],
    [{ tls: CA }, 'tls', /object/],
  ])('refuses %j, naming the option', (extra, name, message) => {
    for (const resolve of [
      () => licensing(extra),
      () => resolveEventClientOptions({ eventUrl: 'https://events.example', ...extra } as never),
    ]) {
      const error = optionError(resolve);
      expect(error.option).toBe(name);
      expect(error.message).toMatch(message);
    }
  });

  it('refuses a proxy URL or tls beside an app’s own fetch: the SDK would not apply them', () => {
    const own: typeof fetch = async () => new Response(null);
    expect(optionError(() => licensing({ fetch: own, proxy: 'http://p:1' })).option).toBe('proxy');
    expect(optionError(() => licensing({ fetch: own, tls: { ca: CA } })).option).toBe('tls');
    // `proxy: false` asks for nothing the app's fetch does not do already.
    expect(typeof licensing({ fetch: own, proxy: false }).fetch).toBe('function');
  });

  it('uses an app’s own fetch as given, called as a plain function', async () => {
    const seen: unknown[] = [];
    const own = async function (this: unknown, input: RequestInfo | URL) {
      seen.push(this, String(input));
      return new Response('ok');
    } as typeof fetch;
    const fetchFn = resolveFetch({ fetch: own });
    expect(await (await fetchFn('https://x.example/a')).text()).toBe('ok');
    expect(seen).toEqual([undefined, 'https://x.example/a']);
  });
});
