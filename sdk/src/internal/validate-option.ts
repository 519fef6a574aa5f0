/** Throws a TypeError naming `name` unless `value` is a finite number >= 0. */
export function validateDurationOption(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`Expected \`${name}\` to be a finite number of milliseconds >= 0`);
  }
  return value;
}

/** Throws a TypeError naming `name` unless `value` is a function. */
export function validateFunctionOption(name: string, value: unknown): void {
  if (typeof value !== 'function') throw new TypeError(`Expected \`${name}\` to be a function`);
}
