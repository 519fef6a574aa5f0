/**
 * The message of anything thrown: an Error's `message`, else the value as text. For error
 * messages that quote a cause.
 *
 * @example
 * throw new LicensingError('SERVICE_UNAVAILABLE', `could not read it (${messageOf(error)})`);
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
