import { isLicensingError } from '@standby-licensing/sdk';
import {
  clientFor,
  type MockLicensing,
  mintIdToken,
  setClockOffset,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOUR = 3_600_000;
let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing();
});
afterAll(() => mock.close());

describe('ID token grace on the standby', () => {
  it('uses the last good ID token within 24 h of its expiry, then gives ID_TOKEN_EXPIRED', async () => {
    // One clock shift for both sides: the mock's admin clock offset and the client's `now`.
    let offsetMs = 0;
    const token = await mintIdToken(mock.server, 'user-grace', 60);
    let providerCalls = 0;
    const { client } = clientFor(mock, {
      now: () => Date.now() + offsetMs,
      idToken: () => {
        providerCalls += 1;
        // The identity provider goes down with the main service after the first token.
        if (providerCalls > 1) throw new Error('identity provider unreachable');
        return token;
      },
      failover: { strategy: 'A', mainAttempts: 1 },
    });
    const grace: number[] = [];
    client.on('idTokenGrace', (e) => grace.push(e.expiresAt));

    expect((await client.checkout(['ItemA'])).leases[0]!.servedBy).toBe('main');

    await setMainFault(mock.server, { mode: 'reset' });
    offsetMs = 2 * HOUR;
    await setClockOffset(mock.server, offsetMs);
    const { leases } = await client.checkout(['ItemA']);
    expect(leases[0]!.servedBy).toBe('standby');
    expect(leases[0]!.claims.sub).toBe('user-grace');
    expect(grace.length).toBeGreaterThan(0);

    offsetMs = 25 * HOUR;
    await setClockOffset(mock.server, offsetMs);
    const error = await client.checkout(['ItemA']).catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('ID_TOKEN_EXPIRED');
    await setClockOffset(mock.server, 0);
    await client.close();
  });
});
