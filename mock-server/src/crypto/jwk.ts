import type { RsaKey } from './rsa-key.js';

/** A public RSA JWK as the services publish it. */
export interface PublicRsaJwk {
  kty: 'RSA';
  kid: string;
  use: 'sig';
  alg: 'RS256';
  n: string;
  e: string;
  x5c?: string[];
}

/** The public JWK of `key`, with `x5c` (standard base64 DER, leaf first) when given. */
export function toPublicJwk(key: RsaKey, x5c?: string[]): PublicRsaJwk {
  const { n, e } = key.publicKey.export({ format: 'jwk' });
  return {
    kty: 'RSA',
    kid: key.kid,
    use: 'sig',
    alg: 'RS256',
    n: n!,
    e: e!,
    ...(x5c ? { x5c } : {}),
  };
}
