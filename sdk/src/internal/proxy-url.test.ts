import { describe, expect, it } from 'vitest';
import { parseProxyUrl } from './proxy-url.js';

describe('parseProxyUrl', () => {
  it('reads scheme, host and port, with curl defaults for a missing scheme or port', () => {
    expect(parseProxyUrl('http://proxy.example:3128')).toEqual({
      origin: 'http://proxy.example:3128',
      credentials: undefined,
    });
    expect(parseProxyUrl('proxy.example:8080').origin).toBe('http://proxy.example:8080');
    expect(parseProxyUrl('http://proxy.example').origin).toBe('http://proxy.example:1080');
    expect(parseProxyUrl('http://proxy.example:80/').origin).toBe('http://proxy.example:80');
    expect(parseProxyUrl('https://proxy.example').origin).toBe('https://proxy.example:443');
    expect(parseProxyUrl('http://[::1]:3128').origin).toBe('http://[::1]:3128');
  });

  it('keeps user:password@ (percent-encoded) for Basic authentication, decoded', () => {
    const { origin, credentials } = parseProxyUrl('http://al%40ce:p%3Ass%20w@proxy:3128');
    expect(origin).toBe('http://proxy:3128');
    expect(credentials).toBe('al@ce:p:ss w');
    expect(parseProxyUrl('http://bob@proxy:1').credentials).toBe('bob:');
    expect(parseProxyUrl('http://j%C3%BCrgen:%C3%A9t%C3%A9@proxy:1').credentials).toBe(
      'jürgen:été',
    );
  });

  it.each([
    ['socks5://proxy:1080', /socks5: proxies are not supported/],
    ['http://proxy:3128/path', /no path/],
    ['http://proxy:3128/?a=b', /no path/],
    ['http://', /not a URL/],
    ['http://proxy:99999', /not a URL/],
  ])('refuses %s, saying why', (text, why) => {
    expect(() => parseProxyUrl(text)).toThrow(why);
  });
});
