// Test support for the licensing client's unit tests (msw-based): unsigned lease-shaped tokens and
// a verifier that only decodes them. Never exported from the package.
import { decodeJwt } from 'jose';
import { TokenInvalidError } from '../../sdk/src/errors.js';
import type { LeaseVerifier } from '../../sdk/src/lease/lease-verifier.js';
import type { LeaseClaims } from '../../sdk/src/types.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact JWT-shaped token carrying `claims`, with a dummy signature. */
export function fakeToken(claims: Record<string, unknown>): string {
  return `${b64({ alg: 'RS256', typ: 'JWT', kid: 'fake' })}.${b64(claims)}.c2ln`;
}

/** A verifier that decodes and checks the item claim; records every call. */
export function createFakeVerifier(): LeaseVerifier & {
  calls: Array<{ service: string; item?: string | undefined }>;
} {
  const calls: Array<{ service: string; item?: string | undefined }> = [];
  return {
    calls,
    async verify(token, { service, item, signal }) {
      signal?.throwIfAborted();
      calls.push({ service, item });
      const claims = decodeJwt(token) as LeaseClaims;
      if (item !== undefined && claims[item] !== true) {
        throw new TokenInvalidError('item', `no claim for ${item}`);
      }
      return claims;
    },
  };
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

/** The `&`-joined tokens a service would answer for `search`, issued at `nowSeconds`. */
export function answerAuthz(
  search: string,
  service: 'main' | 'standby',
  nowSeconds: number,
  deny: readonly string[] = [],
): string {
  const { items, release } = parseAuthzQuery(search);
  if (release) {
    return fakeToken({
      ...Object.fromEntries(release.map((id) => [id, true])),
      iss: service,
      iat: nowSeconds,
      exp: nowSeconds + 28_800,
    });
  }
  return items
    .map(({ item, attributes }) => {
      if (deny.includes(item)) {
        return fakeToken({
          [`${item}_errorCode`]: 'noLicenseFound',
          [`${item}_errorMessage`]: 'No license found',
          iss: service,
          iat: nowSeconds,
          exp: nowSeconds + 28_800,
        });
      }
      counter += 1;
      return fakeToken({
        [item]: true,
        jti: attributes.leaseId ?? `${service}-lease-${counter}`,
        lic: attributes.licenseId ?? `${service}-lic-${counter}`,
        iss: service,
        iat: nowSeconds,
        exp: nowSeconds + 28_800,
        rfr: nowSeconds + 21_600,
      });
    })
    .join('&');
}
