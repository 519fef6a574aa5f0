import { LeaseStoreInvalidError } from '../errors.js';
import type { LeaseStoreSealing } from '../types.js';
import { option } from './validate-option.js';

/** The `seal`/`unseal` pair of a persistent store's options, checked once (both or neither). */
export function resolveSealing(name: string, value: unknown): LeaseStoreSealing | undefined {
  if (value === undefined) return undefined;
  const sealing = option.object(name, value);
  option.knownKeys(name, sealing, ['seal', 'unseal']);
  option.requireFn(`${name}.seal`, sealing.seal);
  option.requireFn(`${name}.unseal`, sealing.unseal);
  return sealing as unknown as LeaseStoreSealing;
}

/** The text to store: sealed when the store seals. */
export async function sealText(
  sealing: LeaseStoreSealing | undefined,
  text: string,
): Promise<string> {
  if (!sealing) return text;
  const sealed = await sealing.seal(text);
  if (typeof sealed !== 'string') throw new TypeError('seal() must return a string');
  return sealed;
}

/**
 * The text a store read, unsealed when the store seals.
 *
 * @throws LeaseStoreInvalidError `sealed` when `unseal` refuses the text (it was edited, or not
 *   sealed by this `seal`).
 */
export async function unsealText(
  sealing: LeaseStoreSealing | undefined,
  text: string,
): Promise<string> {
  if (!sealing) return text;
  let opened: unknown;
  try {
    opened = await sealing.unseal(text);
  } catch (cause) {
    throw new LeaseStoreInvalidError(
      'sealed',
      "The lease store's seal does not match its text: it was edited, or sealed with another key. It is replaced at the next successful checkout. Check that seal and unseal use the same key on this device.",
      { cause },
    );
  }
  if (typeof opened !== 'string') {
    throw new LeaseStoreInvalidError(
      'sealed',
      'unseal() returned something that is not a string. Check the unseal function given to the lease store: it must return the text seal() was given.',
    );
  }
  return opened;
}
