// Hardware ids the wire can carry (DECISIONS.md "Trust while the app runs (fourth wave)"):
// `hardwareId` and `hardwareName` (options, `machineId()` output and
// STANDBY_LICENSING_HARDWARE_ID alike) are non-empty, at most 256 characters, with no `;` and
// no control character; anything else is INVALID_ARGUMENT when the client is made, naming the
// option and the character. The service splits `hw=<id>;name=<label>` at `;`: an id with one came
// back cut and every lease was refused as another device's. Finding 5 of issue 28. Rules:
// sdk/src/options/hardware-id.ts, sdk/src/node/machine-id.ts.
import { createLicensingClient, isLicensingError } from '@standby-licensing/sdk';
import { machineId } from '@standby-licensing/sdk/node';
import { clientFor, type MockLicensing, startMockLicensing } from '@test/helpers/mock-licensing.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing();
});
afterEach(() => vi.unstubAllEnvs());
afterAll(() => mock.close());

/** What `createLicensingClient` threw for these options, or undefined. */
function creationError(extra: {
  hardwareId?: string;
  hardwareName?: string;
  version?: string;
}): unknown {
  try {
    clientFor(mock, extra).client.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe.each(['hardwareId', 'hardwareName'] as const)('%s', (option) => {
  it.each([
    ['a ;', 'pc-1;rack-2', "';'"],
    ['a line feed', 'pc-1\nx', 'U+000A'],
    ['a NUL', 'pc\u0000', 'U+0000'],
    ['a DEL', 'pc\u007f', 'U+007F'],
    ['a lone surrogate', 'pc-\ud800', 'lone UTF-16 surrogate'],
  ])('with %s is INVALID_ARGUMENT naming the option and the character', (_n, value, named) => {
    const error = creationError({ [option]: value });
    expect(isLicensingError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((error as Error).message).toContain(option);
    expect((error as Error).message).toContain(named);
  });

  it('empty or longer than 256 characters is INVALID_ARGUMENT', () => {
    for (const value of ['', 'x'.repeat(257)]) {
      expect(creationError({ [option]: value })).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    expect(creationError({ [option]: 'x'.repeat(256) })).toBeUndefined();
  });

  it('accepts what the wire carries whole: spaces, =, &, non-ASCII', async () => {
    const value = 'Büro PC = #2 & spare';
    const { client } = clientFor(mock, { [option]: value });
    const [lease] = (await client.checkout(['ItemA'])).leases;
    expect(lease!.claims[option === 'hardwareId' ? 'hw' : 'hwName']).toBe(value);
    expect(client.has('ItemA')).toBe(true);
    await client.close();
  });
});

describe('STANDBY_LICENSING_HARDWARE_ID', () => {
  it('with a ; makes machineId() INVALID_ARGUMENT naming the variable', async () => {
    vi.stubEnv('STANDBY_LICENSING_HARDWARE_ID', 'image-7;clone');
    const error = await machineId({ appId: 'com.example.app' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((error as Error).message).toContain('STANDBY_LICENSING_HARDWARE_ID');
    expect((error as Error).message).toContain("';'");
  });

  it('a valid one is used as it is, and the client takes it', async () => {
    vi.stubEnv('STANDBY_LICENSING_HARDWARE_ID', 'image-7');
    const hardwareId = await machineId({ appId: 'com.example.app' });
    expect(hardwareId).toBe('image-7');
    const client = createLicensingClient({
      mainUrl: mock.server.info.mainUrl,
      standbyUrl: mock.server.info.standbyUrl,
      auth: { serviceKeyHash: 'ab'.repeat(32) },
      trust: { rootCertificates: [mock.standbyRoot] },
      hardwareId,
    });
    await client.close();
  });
});

describe('other text the wire carries', () => {
  it('a version or an item name with a lone surrogate is INVALID_ARGUMENT, never a URIError', async () => {
    expect(creationError({ version: 'v1\ud800' } as never)).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    const { client } = clientFor(mock);
    for (const items of [['Item\udc00'], [{ item: 'ItemA', licenseId: 'L\ud800' }]]) {
      const error = await client.checkout(items as never).catch((e: unknown) => e);
      expect(isLicensingError(error)).toBe(true);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    await client.close();
  });
});
