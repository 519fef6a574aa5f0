// The app's embedded roots: parsed once (PEM with CRLF and surrounding text), refused with
// INVALID_ARGUMENT naming the root, and a warning once per root that expires within 90 days.

import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestRoot, type TestCa } from '../../test/helpers/test-pki.js';
import { LicensingError } from '../errors.js';
import { formatPem } from '../internal/pem.js';
import {
  anchorsFor,
  type ParsedRoot,
  parseTrustedRoots,
  watchRootExpiry,
} from './trusted-roots.js';

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;

let root: TestCa;

beforeAll(async () => {
  root = await createTestRoot({
    now: () => T0,
    name: 'Embedded Root',
    notAfter: new Date(T0 + 400 * DAY),
  });
});

function refusal(roots: unknown): LicensingError {
  try {
    parseTrustedRoots(roots);
  } catch (error) {
    expect(error).toBeInstanceOf(LicensingError);
    return error as LicensingError;
  }
  throw new Error('expected parseTrustedRoots to throw');
}

describe('anchorsFor', () => {
  it("gives each service the roots for it and those for either, never the other's", () => {
    const roots = parseTrustedRoots([
      { pem: root.pem, keyId: 'm', service: 'main' },
      { pem: root.pem, keyId: 's', service: 'standby' },
      { pem: root.pem, keyId: 'both' },
    ]);
    expect(roots.map((r) => r.service)).toEqual(['main', 'standby', undefined]);
    expect(anchorsFor(roots, 'main').map((r) => r.keyId)).toEqual(['m', 'both']);
    expect(anchorsFor(roots, 'standby').map((r) => r.keyId)).toEqual(['s', 'both']);
    // Anything but the two names is no service (the options refuse it before).
    expect(
      parseTrustedRoots([{ pem: root.pem, service: 'backup' as never }])[0],
    ).not.toHaveProperty('service');
  });
});

describe('parseTrustedRoots', () => {
  it('parses each root once, with its DER, its expiry and its key id', () => {
    const [parsed, second] = parseTrustedRoots([
      { pem: root.pem, keyId: 'key-1' },
      { pem: root.pem },
    ]);
    expect(parsed!.cert.subject).toBe('CN=Embedded Root');
    expect(parsed!.der).toEqual(new Uint8Array(root.cert.rawData));
    expect(parsed!.der).toBe(parsed!.cert.der);
    expect(parsed!.notAfter).toBe(T0 + 400 * DAY);
    expect(parsed!.keyId).toBe('key-1');
    expect(second).not.toHaveProperty('keyId');
  });

  it('ignores a key id that is not a string', () => {
    const [parsed] = parseTrustedRoots([{ pem: root.pem, keyId: 7 }]);
    expect(parsed).not.toHaveProperty('keyId');
  });

  it('tolerates CRLF, surrounding text and other PEM blocks before the certificate', async () => {
    const spki = await globalThis.crypto.subtle.exportKey('spki', root.keys.publicKey);
    const pem = `Our root:\r\n${formatPem('PUBLIC KEY', spki)}${root.pem.replace(/\n/g, '\r\n')}trailer`;
    expect(parseTrustedRoots([{ pem }])[0]!.cert.subject).toBe('CN=Embedded Root');
  });

  it('refuses no roots at all', () => {
    for (const roots of [undefined, null, [], 'pem', { pem: root.pem }]) {
      const error = refusal(roots);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toBe(
        'roots must list at least one root certificate. Pass the roots embed-root wrote (npx standby-licensing embed-root --help).',
      );
    }
  });

  it('refuses a root that is not a PEM certificate, naming which and why', async () => {
    const spki = await globalThis.crypto.subtle.exportKey('spki', root.keys.publicKey);
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /^roots\[1\] is not a PEM certificate \(pem must be a string\)\. Pass the root/],
      [{ pem: 7 }, /^roots\[1\] is not a PEM certificate \(pem must be a string\)\. Pass the root/],
      [
        { pem: formatPem('PUBLIC KEY', spki) },
        /^roots\[1\] is not a PEM certificate \(no CERTIFICATE PEM block\)\. Pass the root/,
      ],
      [
        { pem: 'no pem here' },
        /^roots\[1\] is not a PEM certificate \(no PEM block found\)\. Pass the root/,
      ],
      [
        { pem: formatPem('CERTIFICATE', spki) },
        /^roots\[1\] is not a PEM certificate \(.+\)\. Pass the root/,
      ],
    ];
    for (const [entry, message] of cases) {
      const error = refusal([{ pem: root.pem }, entry]);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
      expect(error.cause).toBeDefined();
    }
  });
});

describe('watchRootExpiry', () => {
  const rootExpiring = (notAfter: number, keyId?: string) =>
    ({ notAfter, ...(keyId === undefined ? {} : { keyId }) }) as ParsedRoot;

  it('warns once per root that expires within 90 days, with its key id and the days left', () => {
    const soon = rootExpiring(T0 + 90 * DAY, 'key-1');
    const later = rootExpiring(T0 + 90 * DAY + 1);
    const clock = { now: T0 };
    const onExpiring = vi.fn();
    const check = watchRootExpiry([soon, later], () => clock.now, onExpiring);
    check();
    expect(onExpiring).toHaveBeenCalledTimes(1);
    expect(onExpiring).toHaveBeenCalledWith({
      keyId: 'key-1',
      notAfter: new Date(T0 + 90 * DAY),
      daysLeft: 90,
    });
    check();
    expect(onExpiring).toHaveBeenCalledTimes(1);
    clock.now = T0 + 1.5 * DAY;
    check();
    expect(onExpiring).toHaveBeenCalledTimes(2);
    expect(onExpiring.mock.calls[1]![0]).toEqual({
      notAfter: new Date(T0 + 90 * DAY + 1),
      daysLeft: 88,
    });
    expect(onExpiring.mock.calls[1]![0]).not.toHaveProperty('keyId');
  });

  it('warns about a root that has expired, with negative days', () => {
    const onExpiring = vi.fn();
    watchRootExpiry([rootExpiring(T0 - 2.5 * DAY)], () => T0, onExpiring)();
    expect(onExpiring).toHaveBeenCalledWith({ notAfter: new Date(T0 - 2.5 * DAY), daysLeft: -3 });
  });

  it('does nothing without a listener, and a throwing listener breaks nothing and is not called again', () => {
    const now = vi.fn(() => T0);
    expect(() => watchRootExpiry([rootExpiring(T0)], now, undefined)()).not.toThrow();
    expect(now).not.toHaveBeenCalled();
    const onExpiring = vi.fn(() => {
      throw new Error('listener failed');
    });
    const check = watchRootExpiry([rootExpiring(T0), rootExpiring(T0 + DAY)], () => T0, onExpiring);
    expect(check).not.toThrow();
    expect(onExpiring).toHaveBeenCalledTimes(2);
    check();
    expect(onExpiring).toHaveBeenCalledTimes(2);
  });
});
