import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../errors.js';
import { DEFAULTS } from './defaults.js';
import { type LicensingClientOptions, resolveLicensingClientOptions } from './licensing-client.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const base: LicensingClientOptions = {
  mainUrl: 'https://main.example/',
  standbyUrl: 'https://standby.example/v1',
  auth: { idToken: () => 'token' },
  trust: { rootCertificates: [{ pem: PEM }, { pem: PEM, keyId: 'k2' }, { pem: PEM, keyId: 'k3' }] },
};

function resolveWith(patch: Record<string, unknown>) {
  return () => resolveLicensingClientOptions({ ...base, ...patch } as LicensingClientOptions);
}

describe('resolveLicensingClientOptions', () => {
  it('applies DEFAULTS and normalises URLs', () => {
    const resolved = resolveLicensingClientOptions(base);
    expect(resolved.failover).toEqual(DEFAULTS.failover);
    expect(resolved.names).toEqual(DEFAULTS.names);
    expect(resolved.mainUrl).toBe('https://main.example');
    expect(resolved.standbyUrl).toBe('https://standby.example/v1');
    expect(resolved.signingKeyIds).toEqual(['k2', 'k3']);
    expect(resolved.auth.kind).toBe('idToken');
  });

  it('says what trust is and how to embed roots when it is missing', () => {
    const { trust: _, ...withoutTrust } = base;
    const missing = () =>
      resolveLicensingClientOptions(withoutTrust as unknown as LicensingClientOptions);
    expect(missing).toThrow(InvalidOptionError);
    expect(missing).toThrow(/rootCertificates.*embed-root/);
    expect(resolveWith({ trust: { rootCertificates: [] } })).toThrow(/embed-root/);
  });

  it('suggests the known option closest to a misspelt one', () => {
    expect(resolveWith({ hardwareld: 'pc-1' })).toThrow(
      'Unknown option `hardwareld`. Did you mean `hardwareId`? Fix its name, or remove it.',
    );
  });

  it("takes each root's service, and never a key id of main's root for the standby", () => {
    const resolved = resolveLicensingClientOptions({
      ...base,
      trust: {
        rootCertificates: [
          { pem: PEM, keyId: 'main-key', service: 'main' },
          { pem: PEM, keyId: 'standby-key', service: 'standby' },
          { pem: PEM, keyId: 'either' },
          { pem: PEM, keyId: 'standby-key' },
        ],
      },
    });
    expect(resolved.signingKeyIds).toEqual(['standby-key', 'either']);
    expect(resolved.trust.rootCertificates.map((root) => root.service)).toEqual([
      'main',
      'standby',
      undefined,
      undefined,
    ]);
    expect(resolveWith({ trust: { rootCertificates: [{ pem: PEM }] } })().signingKeyIds).toEqual(
      [],
    );
  });

  it.each([
    ['unknown top-level key', { mainURL: 'x' }, /Unknown option `mainURL`/],
    [
      'a root for another service',
      { trust: { rootCertificates: [{ pem: PEM, service: 'backup' }] } },
      /`trust.rootCertificates\[0\].service`/,
    ],
    ['bad mainUrl', { mainUrl: 'not a url' }, /`mainUrl`/],
    ['ftp standbyUrl', { standbyUrl: 'ftp://x' }, /`standbyUrl`/],
    [
      'standbyUrl equal to mainUrl',
      { standbyUrl: 'https://MAIN.example//' },
      /`standbyUrl` to differ from `mainUrl`/,
    ],
    ['auth without scheme', { auth: {} }, /`auth`/],
    ['auth.idToken not a function', { auth: { idToken: 'abc' } }, /`auth.idToken`/],
    ['bad hash', { auth: { serviceKeyHash: 'xyz' } }, /`auth.serviceKeyHash`/],
    ['bad PEM', { auth: { servicePublicKeyPem: 'nope' } }, /`auth.servicePublicKeyPem`/],
    [
      'unknown auth key',
      { auth: { idToken: (): string => 't', grace: 1 } },
      /Unknown option `auth.grace`/,
    ],
    [
      'negative providerTimeoutMs',
      { auth: { idToken: (): string => 't', providerTimeoutMs: -1 } },
      /`auth.providerTimeoutMs`/,
    ],
    ['strategy C', { failover: { strategy: 'C' } }, /`failover.strategy`/],
    ['mainAttempts 0', { failover: { mainAttempts: 0 } }, /`failover.mainAttempts`/],
    ['mainAttempts 1.5', { failover: { mainAttempts: 1.5 } }, /`failover.mainAttempts`/],
    ['negative timeout', { failover: { attemptTimeoutMs: -1 } }, /`failover.attemptTimeoutMs`/],
    ['max < base', { failover: { backoffBaseMs: 10, backoffMaxMs: 5 } }, /`failover.backoffMaxMs`/],
    ['unknown failover key', { failover: { retries: 3 } }, /Unknown option `failover.retries`/],
    ['no roots', { trust: { rootCertificates: [] } }, /`trust.rootCertificates`/],
    [
      'root not PEM',
      { trust: { rootCertificates: [{ pem: 'x' }] } },
      /`trust.rootCertificates\[0\].pem`/,
    ],
    ['empty hardwareId', { hardwareId: '' }, /`hardwareId`/],
    [
      'bad header name',
      { names: { signingKeyIdHeader: 'bad header' } },
      /`names.signingKeyIdHeader`/,
    ],
    ['fetch not a function', { fetch: 1 }, /`fetch`/],
    ['unknown event hook', { on: { failOver: () => {} } }, /Unknown option `on.failOver`/],
    ['logger without warn', { logger: {} }, /`logger.warn`/],
  ])('rejects %s with an InvalidOptionError naming the option', (_name, patch, message) => {
    expect(resolveWith(patch)).toThrow(InvalidOptionError);
    expect(resolveWith(patch)).toThrow(message);
  });

  it('accepts a vendor’s header and scheme names', () => {
    const resolved = resolveLicensingClientOptions({
      ...base,
      names: { signingKeyIdHeader: 'Acme-SigningKeyId', serviceKeyHashScheme: 'AcmeKeyHash' },
    });
    expect(resolved.names).toEqual({
      signingKeyIdHeader: 'Acme-SigningKeyId',
      idTokenScheme: 'IdToken',
      serviceKeyHashScheme: 'AcmeKeyHash',
    });
  });

  it('lower-cases a given ServiceKeyHash', () => {
    const resolved = resolveLicensingClientOptions({
      ...base,
      auth: { serviceKeyHash: 'AB'.repeat(32) },
    });
    expect(resolved.auth).toEqual({ kind: 'serviceKeyHash', hash: 'ab'.repeat(32) });
  });
});
