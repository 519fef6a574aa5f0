// Test support for the licensing client's unit tests (msw-based): lease tokens signed for real
// by two fake services (main and standby, each with its own signing key under one test root), and
// the lease store document that hands the client their keys without a JWKS fetch. Never exported
// from the package.
import { KeyObject, sign } from 'node:crypto';
import { base64url } from 'jose';
import type { SavedLicensingState, TrustedRoot } from '../../src/types.js';
import { createTestCa, createTestSigningKey, type TestSigningKey } from './test-pki.js';

const b64 = (value: unknown) => base64url.encode(JSON.stringify(value));

/** A compact JWT-shaped token carrying `claims`, with a dummy signature (shape only). */
export function fakeToken(claims: Record<string, unknown>): string {
  return `${b64({ alg: 'RS256', typ: 'JWT', kid: 'fake' })}.${b64(claims)}.c2ln`;
}

// Certificates valid from 2020 to 2040, so tests on a fake clock (2030) and on the real one agree.
const VALIDITY = {
  notBefore: new Date(Date.UTC(2020, 0, 1)),
  notAfter: new Date(Date.UTC(2040, 0, 1)),
};
const root = await createTestCa({ name: 'Fake Licensing Root', ...VALIDITY });
const signingKeys: Record<'main' | 'standby', TestSigningKey> = {
  main: await createTestSigningKey(root, { kid: 'fake-main-key', ...VALIDITY }),
  standby: await createTestSigningKey(root, { kid: 'fake-standby-key', ...VALIDITY }),
};

/** The fake services' PKI: the root an app embeds and each service's signing key. */
export const fakeServices = {
  root,
  trustedRoot: { pem: root.pem } satisfies TrustedRoot,
  keys: signingKeys,
  jwks: {
    main: { keys: [signingKeys.main.jwk] },
    standby: { keys: [signingKeys.standby.jwk] },
  },
};

const privateKeys = {
  main: KeyObject.from(signingKeys.main.keys.privateKey),
  standby: KeyObject.from(signingKeys.standby.keys.privateKey),
};

/**
 * Signs `claims` (RS256, the service's `kid`) as `service` would; no `iat`/`exp` filled in.
 * Synchronous (node:crypto), so tests on fake timers get their answers without waiting for
 * WebCrypto's thread pool.
 */
export function signAs(service: 'main' | 'standby', claims: Record<string, unknown>): string {
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: signingKeys[service].kid })}.${b64(claims)}`;
  const signature = sign('sha256', Buffer.from(input), privateKeys[service]);
  return `${input}.${signature.toString('base64url')}`;
}

/**
 * The lease store text of a client that already holds both fake services' keys (as after one
 * online call), so unit tests make no JWKS request.
 */
export function storeWithFakeKeys(): string {
  const state: SavedLicensingState = {
    version: 2,
    leases: [],
    keys: { main: [signingKeys.main.jwk], standby: [signingKeys.standby.jwk] },
    timeMark: 0,
    offsetMs: 0,
  };
  return JSON.stringify(state);
}

/** Parses an `/authz/.jwt` query into items (with attributes) and reserved parameters. */
export function parseAuthzQuery(search: string): {
  items: Array<{ item: string; attributes: Record<string, string> }>;
  params: Record<string, string>;
  release: string[] | undefined;
} {
  const parts = search.replace(/^\?/, '').split('&').filter(Boolean);
  if (parts[0] === 'release') {
    return { items: [], params: {}, release: parts.slice(1).map(decodeURIComponent) };
  }
  const items: Array<{ item: string; attributes: Record<string, string> }> = [];
  const params: Record<string, string> = {};
  for (const part of parts) {
    const eq = part.indexOf('=');
    const name = decodeURIComponent(eq === -1 ? part : part.slice(0, eq));
    const value = eq === -1 ? '' : part.slice(eq + 1);
    if (['hw', 'version', 'process', 'leaseId', 'licenseId'].includes(name)) {
      params[name] = decodeURIComponent(value);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const attr of value.split(';').filter(Boolean)) {
      const [k, v = ''] = attr.split('=');
      attributes[decodeURIComponent(k!)] = decodeURIComponent(v);
    }
    items.push({ item: name, attributes });
  }
  return { items, params, release: undefined };
}

let counter = 0;

/**
 * The `&`-joined tokens a service would answer for `search`, issued at `nowSeconds` and signed
 * with that service's key; `hw` and `version` are echoed as the services do.
 */
export function answerAuthz(
  search: string,
  service: 'main' | 'standby',
  nowSeconds: number,
  deny: readonly string[] = [],
): string {
  const { items, release, params } = parseAuthzQuery(search);
  if (release) {
    return signAs(service, {
      ...Object.fromEntries(release.map((id) => [id, true])),
      iss: service,
      iat: nowSeconds,
      exp: nowSeconds + 28_800,
    });
  }
  const echoes = {
    ...(params.hw === undefined ? {} : { hw: params.hw.split(';')[0] }),
    ...(params.version === undefined ? {} : { version: params.version }),
  };
  const tokens = items.map(({ item, attributes }) => {
    if (deny.includes(item)) {
      return signAs(service, {
        [`${item}_errorCode`]: 'noLicenseFound',
        [`${item}_errorMessage`]: 'No license found',
        iss: service,
        iat: nowSeconds,
        exp: nowSeconds + 28_800,
      });
    }
    counter += 1;
    return signAs(service, {
      [item]: true,
      jti: attributes.leaseId ?? `${service}-lease-${counter}`,
      lic: attributes.licenseId ?? `${service}-lic-${counter}`,
      iss: service,
      iat: nowSeconds,
      exp: nowSeconds + 28_800,
      rfr: nowSeconds + 21_600,
      ...echoes,
    });
  });
  return tokens.join('&');
}
