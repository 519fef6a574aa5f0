// `Service-SigningKeyId` names a standby key (DECISIONS.md "Trust while the app runs (fourth
// wave)"): the header goes to the standby only and names a key of the standby's. Roots may say
// which service they are for (`{ pem, keyId?, service? }`, as embed-root writes them); a `keyId`
// on a root for main is never sent. With roots that name no service, a client whose list starts
// with main's root (with a keyId) still fails over to the standby. Finding 8 of issue 28: failover
// failed with SERVICE_UNAVAILABLE. Rules: sdk/src/options/trusted-roots.ts (signing key ids),
// sdk/src/transport/licensing-transport.ts (the next key id after `unknown_signing_key`).

import { rejection } from '@sdk-test/helpers/rejection.js';
import {
  clientFor,
  closedPort,
  type MockLicensing,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
let deadMain: string;
let mainKid: string;
beforeAll(async () => {
  mock = await startMockLicensing();
  deadMain = `http://127.0.0.1:${await closedPort()}/main`;
  const jwks = (await (
    await fetch(`${mock.server.info.mainUrl}/.well-known/jwks.json`)
  ).json()) as {
    keys: Array<{ kid: string }>;
  };
  mainKid = jwks.keys[0]!.kid;
});
afterAll(() => mock.close());

/** A fetch that records the signing-key header of every request to the standby's authz. */
function recordingFetch() {
  const sent: Array<string | null> = [];
  const recorder: typeof fetch = (input, init) => {
    const url = String(input);
    if (url.startsWith(`${mock.server.info.standbyUrl}/authz/`)) {
      sent.push(new Headers(init?.headers).get('service-signingkeyid'));
    }
    return fetch(input, init);
  };
  return { sent, fetch: recorder };
}

describe('roots listed main first, each with a keyId', () => {
  it('naming no service: failover still reaches the standby, which signs with its own key', async () => {
    const { sent, fetch } = recordingFetch();
    const { client } = clientFor(mock, {
      mainUrl: deadMain,
      fetch,
      failover: { mainAttempts: 1 },
      trust: {
        rootCertificates: [{ pem: mock.mainRootPem, keyId: mainKid }, mock.standbyRoot],
      },
    });
    const [lease] = (await client.checkout(['ItemA'])).leases;
    expect(lease?.servedBy).toBe('standby');
    expect(JSON.parse(Buffer.from(lease!.token.split('.')[0]!, 'base64url').toString()).kid).toBe(
      mock.standbyRoot.keyId,
    );
    // The standby learnt of the main key id once; every later request names the standby's.
    const again = await client.renew(lease!);
    expect(again.leaseId).toBe(lease!.leaseId);
    expect(sent.at(-1)).toBe(mock.standbyRoot.keyId);
    expect(sent.filter((id) => id === mainKid).length).toBeLessThanOrEqual(1);
    await client.close();
  });

  it("naming main's root service: 'main', its keyId is never sent", async () => {
    const { sent, fetch } = recordingFetch();
    const { client } = clientFor(mock, {
      mainUrl: deadMain,
      fetch,
      failover: { mainAttempts: 1 },
      trust: {
        rootCertificates: [
          { pem: mock.mainRootPem, keyId: mainKid, service: 'main' },
          { ...mock.standbyRoot, service: 'standby' },
        ],
      },
    });
    expect((await client.checkout(['ItemA'])).leases[0]?.servedBy).toBe('standby');
    expect(sent).toEqual([mock.standbyRoot.keyId]);
    await client.close();
  });
});

describe('a root for one service', () => {
  it("vouches for that service's keys only: main's lease under a root marked standby is refused", async () => {
    const { client } = clientFor(mock, {
      failover: { mainAttempts: 1 },
      trust: {
        rootCertificates: [
          { pem: mock.mainRootPem, service: 'standby' },
          { ...mock.standbyRoot, service: 'main' },
        ],
      },
    });
    expect(await rejection(client.checkout(['ItemA']))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'chain',
    });
    await client.close();
  });
});
