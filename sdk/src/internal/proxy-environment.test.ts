import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesNoProxy, proxyFromEnvironment } from './proxy-environment.js';

const at = (url: string) => new URL(url);

describe('proxyFromEnvironment (as curl reads the variables)', () => {
  it('takes HTTPS_PROXY for https URLs and HTTP_PROXY for http ones, in either case', () => {
    const env = { HTTPS_PROXY: 'http://secure:3128', HTTP_PROXY: 'http://plain:3128' };
    expect(proxyFromEnvironment(at('https://licensing.example/main'), env)).toBe(
      'http://secure:3128',
    );
    expect(proxyFromEnvironment(at('http://licensing.example/main'), env)).toBe(
      'http://plain:3128',
    );
    const lower = { https_proxy: 'http://secure:1', http_proxy: 'http://plain:2' };
    expect(proxyFromEnvironment(at('https://a.example'), lower)).toBe('http://secure:1');
    expect(proxyFromEnvironment(at('http://a.example'), lower)).toBe('http://plain:2');
  });

  it('prefers the lower-case name, as curl does, even when it is set empty', () => {
    const env = { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' };
    expect(proxyFromEnvironment(at('https://a.example'), env)).toBe('http://lower:1');
    expect(
      proxyFromEnvironment(at('https://a.example'), { https_proxy: '', HTTPS_PROXY: 'http://u:2' }),
    ).toBeUndefined();
  });

  it('never sends an https URL to HTTP_PROXY, and ignores empty values', () => {
    expect(proxyFromEnvironment(at('https://a.example'), { HTTP_PROXY: 'http://p:1' })).toBe(
      undefined,
    );
    expect(proxyFromEnvironment(at('https://a.example'), { HTTPS_PROXY: '  ' })).toBeUndefined();
    expect(proxyFromEnvironment(at('https://a.example'), {})).toBeUndefined();
  });

  it('connects directly to the hosts NO_PROXY lists (no_proxy first)', () => {
    const env = { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'licensing.example' };
    expect(proxyFromEnvironment(at('https://licensing.example/x'), env)).toBeUndefined();
    expect(proxyFromEnvironment(at('https://eu.licensing.example/x'), env)).toBeUndefined();
    expect(proxyFromEnvironment(at('https://other.example/x'), env)).toBe('http://p:1');
    const both = { HTTPS_PROXY: 'http://p:1', no_proxy: 'a.example', NO_PROXY: 'b.example' };
    expect(proxyFromEnvironment(at('https://a.example'), both)).toBeUndefined();
    expect(proxyFromEnvironment(at('https://b.example'), both)).toBe('http://p:1');
  });
});

describe('matchesNoProxy', () => {
  it.each([
    ['*', 'anything.example', true],
    ['example.com', 'example.com', true],
    ['example.com', 'www.example.com', true],
    ['.example.com', 'example.com', true],
    ['.example.com', 'a.b.example.com', true],
    ['example.com', 'notexample.com', false],
    ['example.com', 'example.com.evil', false],
    ['EXAMPLE.com.', 'Www.Example.COM.', true],
    ['a.example, b.example', 'b.example', true],
    ['a.example b.example', 'b.example', true],
    ['a.example,,  ,b.example', 'b.example', true],
    ['localhost', 'localhost', true],
    ['localhost', '127.0.0.1', false],
    ['127.0.0.1', '127.0.0.1', true],
    ['127.0.0.1', '127.0.0.2', false],
    ['10.0.0.0/8', '10.200.3.4', true],
    ['10.0.0.0/8', '11.0.0.1', false],
    ['192.168.1.0/24', '192.168.1.77', true],
    ['192.168.1.0/24', '192.168.2.1', false],
    ['0.0.0.0/0', '8.8.8.8', true],
    ['::1', '[::1]', true],
    ['[::1]', '[::1]', true],
    ['0:0:0:0:0:0:0:1', '[::1]', true],
    ['::2', '[::1]', false],
    // curl does not read ports in NO_PROXY: such an entry matches nothing.
    ['example.com:443', 'example.com', false],
    ['', 'example.com', false],
    ['*.example.com', 'a.example.com', false],
  ])('NO_PROXY=%j, host %s → %s', (list, host, expected) => {
    expect(matchesNoProxy(host, list)).toBe(expected);
  });

  it('matches a name against itself and its subdomains only (property)', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
    fc.assert(
      fc.property(
        fc.array(label, { minLength: 1, maxLength: 4 }),
        label,
        label,
        (domain, sub, other) => {
          const name = domain.join('.');
          expect(matchesNoProxy(name, name)).toBe(true);
          expect(matchesNoProxy(`${sub}.${name}`, name)).toBe(true);
          expect(matchesNoProxy(`${sub}.${name}`, `.${name}`)).toBe(true);
          // A longer label that merely ends with the name is another domain.
          expect(matchesNoProxy(`${other}x${name}`, name)).toBe(false);
        },
      ),
    );
  });
});
