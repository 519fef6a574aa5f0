// The one rule for what a hardware id (or its label) may hold (DECISIONS.md "Trust while the app
// runs (fourth wave)"): what the wire carries whole. The services split `hw=<id>;name=<label>` at
// `;`, so an id with one comes back cut and every lease is refused as another device's.
import { loneSurrogateAt } from '../internal/lone-surrogate.js';

/** Longest hardware id or label, in characters. */
export const MAX_HARDWARE_TEXT_LENGTH = 256;

/** True for `;` and control characters (C0, DEL, C1). */
function refused(code: number): boolean {
  return code === 0x3b || code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

function describe(char: string): string {
  if (char === ';') return "';'";
  const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return `the control character U+${code}`;
}

/**
 * Why `value` cannot be a hardware id or label, or undefined when it can: it must be a non-empty
 * string of at most {@link MAX_HARDWARE_TEXT_LENGTH} characters with no `;`, no control
 * character and no lone UTF-16 surrogate (which no URL can carry). The text names the character, for a message that says what to fix.
 *
 * @example
 * hardwareTextProblem('pc-1;rack'); // "contains ';' at position 5"
 */
export function hardwareTextProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'is not a string';
  if (value === '') return 'is empty';
  if (value.length > MAX_HARDWARE_TEXT_LENGTH) {
    return `is ${value.length} characters long, more than ${MAX_HARDWARE_TEXT_LENGTH}`;
  }
  for (let i = 0; i < value.length; i++) {
    if (refused(value.charCodeAt(i))) return `contains ${describe(value[i]!)} at position ${i + 1}`;
  }
  const lone = loneSurrogateAt(value);
  if (lone >= 0) return `contains a lone UTF-16 surrogate at position ${lone + 1}`;
  return undefined;
}

/** The advice that ends every refusal of a hardware id. */
export const HARDWARE_TEXT_ADVICE =
  "Pass an id of at most 256 characters without ';' or control characters, e.g. machineId() from @standby-licensing/sdk/node.";
