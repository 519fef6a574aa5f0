import { createLeaseVerifier, type JwkSet } from '@standby-licensing/sdk';
import {
  measureAlternating,
  measureAsync,
  perCpuSecond,
  perWallSecond,
  ratioOf,
} from './bench-helpers.js';
import type { BenchLine, BenchRow } from './bench-result.js';
import { startChildServer } from './child-server.js';
import { measureRawVerify, publicKeyFromJwk } from './crypto-reference.js';
import { createSigningKey, mintToken } from './mock-api.js';

/**
 * Target of row 2: verifications per second at least this share of raw RSA verifies (issue 31;
 * 0.8 before).
 */
export const LEASE_VERIFY_TARGET = 0.9;

function ratioField(ours: number, reference: number): { ratio?: number } {
  const ratio = ratioOf(ours, reference);
  return ratio === undefined ? {} : { ratio };
}

/**
 * Row 2: steady-state `createLeaseVerifier().verify()` per second (JWKS and chain cached, one
 * verification in flight) of real standby leases from the mock server, against raw
 * `crypto.verify` RSA-2048 of the same token with the same key on one core, the two measured in
 * alternating slices so that the machine's drift weighs on both alike. A third line compares
 * with raw `crypto.subtle.verify` (WebCrypto, which the SDK uses so it runs in browsers too).
 */
export const leaseVerifyRow: BenchRow = {
  name: 'verify',
  id: 2,
  title: 'SDK steady-state lease verification vs raw RSA-2048 verify',
  async run({ quick, log }) {
    const server = await startChildServer();
    let tokens: string[];
    let jwks: JwkSet;
    let root: { pem: string; keyId: string };
    try {
      root = await createSigningKey(server);
      const authorization = `IdToken ${await mintToken(server)}`;
      const jwksResponse = await fetch(`${server.info.standbyUrl}/.well-known/jwks.json`, {
        headers: { authorization },
      });
      jwks = (await jwksResponse.json()) as JwkSet;
      tokens = [];
      for (let i = 0; i < 32; i++) {
        const response = await fetch(`${server.info.standbyUrl}/authz/.jwt?ItemA&hw=hw-1`, {
          headers: { authorization, 'service-signingkeyid': root.keyId },
        });
        if (response.status !== 200) throw new Error(`authz: HTTP ${response.status}`);
        tokens.push(await response.text());
      }
    } finally {
      await server.close();
    }

    let jwksLoads = 0;
    const verifier = createLeaseVerifier({
      roots: [root],
      loadJwks: async () => {
        jwksLoads++;
        return jwks;
      },
    });
    let next = 0;
    const verifyOne = async () => {
      const token = tokens[next++ % tokens.length]!;
      const claims = await verifier.verify(token, { service: 'standby', item: 'ItemA' });
      if (claims.ItemA !== true) throw new Error('lease did not verify');
    };
    await verifyOne();

    const [headerPart, payloadPart, signaturePart] = tokens[0]!.split('.') as [
      string,
      string,
      string,
    ];
    const jwk = jwks.keys.find((key) => key.kid === root.keyId) as { n: string; e: string };
    const durationMs = quick ? 500 : 3000;
    log('row 2: raw WebCrypto verify floor, one in flight');
    const subtleKey = await globalThis.crypto.subtle.importKey(
      'jwk',
      { kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RS256', ext: true },
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      false,
      ['verify'],
    );
    const signingInput = new TextEncoder().encode(`${headerPart}.${payloadPart}`);
    const signatureBytes = Buffer.from(signaturePart, 'base64url');
    const subtle = await measureAsync(async () => {
      const ok = await globalThis.crypto.subtle.verify(
        'RSASSA-PKCS1-v1_5',
        subtleKey,
        signatureBytes,
        signingInput,
      );
      if (!ok) throw new Error('WebCrypto reference verify failed');
    }, durationMs);
    log('row 2: SDK verifier against raw crypto.verify, one in flight, in alternating slices');
    const rawKey = publicKeyFromJwk(jwk);
    const rawInput = Buffer.from(`${headerPart}.${payloadPart}`);
    const rawSignature = Buffer.from(signaturePart, 'base64url');
    measureRawVerify(rawKey, rawInput, rawSignature, 200);
    await measureAsync(verifyOne, 200);
    const alternated = await measureAlternating(
      (ms) => measureRawVerify(rawKey, rawInput, rawSignature, ms, 0),
      (ms) => measureAsync(verifyOne, ms, { warmupMs: 0 }),
      { rounds: quick ? 2 : 10, sliceMs: durationMs / (quick ? 2 : 5) },
    );
    const raw = alternated.a;
    const ours = alternated.b;
    log('row 2: SDK verifier, 8 in flight');
    const parallel = await measureAsync(verifyOne, durationMs, { concurrency: 8 });

    const line = (row: string, metric: string, a: number, b: number, label: string): BenchLine => {
      const ratio = ratioOf(a, b);
      return {
        row,
        metric,
        ours: a,
        unit: '/s',
        reference: b,
        referenceLabel: label,
        ...(ratio === undefined ? {} : { ratio }),
        target: `ratio >= ${LEASE_VERIFY_TARGET}`,
        met: ratio !== undefined && ratio >= LEASE_VERIFY_TARGET,
      };
    };
    return [
      {
        ...line(
          '2',
          'SDK lease verifications/s (cached JWKS + chain), wall clock',
          perWallSecond(ours),
          perWallSecond(raw),
          'crypto.verify RSA-2048, 1 core',
        ),
        details: {
          verifications: ours.ops,
          jwksLoads,
          cpuShare: ours.cpuMs / ours.wallMs,
          roundRatioMin: Math.min(...alternated.roundRatios),
          roundRatioMax: Math.max(...alternated.roundRatios),
          eightInFlightPerS: perWallSecond(parallel),
          eightInFlightPerCpuS: perCpuSecond(parallel),
        },
      },
      line(
        '2 cpu',
        'SDK lease verifications per CPU-second',
        perCpuSecond(ours),
        perCpuSecond(raw),
        'crypto.verify per CPU-second',
      ),
      {
        row: '2 floor',
        metric: 'SDK verifications per CPU-second vs raw crypto.subtle.verify',
        ours: perCpuSecond(ours),
        unit: '/s',
        reference: perCpuSecond(subtle),
        referenceLabel: 'WebCrypto verify per CPU-second',
        ...ratioField(perCpuSecond(ours), perCpuSecond(subtle)),
        details: { subtleWallPerS: perWallSecond(subtle) },
      },
    ];
  },
};
