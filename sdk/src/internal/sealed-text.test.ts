// Sealing of the persistent lease stores (DECISIONS.md "Lease trust (third wave)", "Sealing"):
// both functions or neither, and any text `unseal` refuses is LEASE_STORE_INVALID `sealed`.

import { describe, expect, it } from 'vitest';
import { hmacSealing } from '../../test/helpers/sealing.js';
import { InvalidOptionError, LeaseStoreInvalidError } from '../errors.js';
import { resolveSealing, sealText, unsealText } from './sealed-text.js';

const sealing = hmacSealing('keychain secret');

async function sealedRefusal(promise: Promise<unknown>): Promise<LeaseStoreInvalidError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(LeaseStoreInvalidError);
  expect((error as LeaseStoreInvalidError).reason).toBe('sealed');
  return error as LeaseStoreInvalidError;
}

describe('resolveSealing', () => {
  it('takes both functions or none', () => {
    expect(resolveSealing('sealing', undefined)).toBeUndefined();
    expect(resolveSealing('sealing', sealing)).toBe(sealing);
  });

  it('refuses anything else, naming the option', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /`sealing` to be an object/],
      ['seal', /`sealing` to be an object/],
      [{ seal: sealing.seal }, /`sealing.unseal` to be a function/],
      [{ unseal: sealing.unseal }, /`sealing.seal` to be a function/],
      [{ ...sealing, unseal: 'x' }, /`sealing.unseal` to be a function/],
      [{ ...sealing, key: 'k' }, /Unknown option `sealing.key`/],
    ];
    for (const [value, message] of cases) {
      expect(() => resolveSealing('sealing', value)).toThrow(InvalidOptionError);
      expect(() => resolveSealing('sealing', value)).toThrow(message);
    }
  });
});

describe('sealText and unsealText', () => {
  it('leave the text as it is without sealing', async () => {
    expect(await sealText(undefined, 'text')).toBe('text');
    expect(await unsealText(undefined, 'text')).toBe('text');
  });

  it('seal and unseal, also with async functions', async () => {
    const sealed = await sealText(sealing, '{"version":2}');
    expect(sealed).not.toBe('{"version":2}');
    expect(await unsealText(sealing, sealed)).toBe('{"version":2}');
    const async = {
      seal: async (t: string) => `[${t}]`,
      unseal: async (t: string) => t.slice(1, -1),
    };
    expect(await unsealText(async, await sealText(async, 'x'))).toBe('x');
  });

  it('refuse a seal that returns no string', async () => {
    const bad = { seal: () => 7 as unknown as string, unseal: (t: string) => t };
    await expect(sealText(bad, 'x')).rejects.toThrow(new TypeError('seal() must return a string'));
  });

  it('call edited text sealed, with the unseal failure as cause', async () => {
    const sealed = await sealText(sealing, '{"version":2}');
    const error = await sealedRefusal(unsealText(sealing, sealed.replace('2', '3')));
    expect(error.code).toBe('LEASE_STORE_INVALID');
    expect(error.message).toMatch(
      /seal does not match its text: it was edited, or sealed with another key/,
    );
    expect(error.cause).toEqual(new Error('bad seal'));
  });

  it('call an unseal that returns no string sealed', async () => {
    const odd = { seal: (t: string) => t, unseal: () => undefined as unknown as string };
    const error = await sealedRefusal(unsealText(odd, 'x'));
    expect(error.message).toBe(
      'unseal() returned something that is not a string. Check the unseal function given to the lease store: it must return the text seal() was given.',
    );
  });
});
