/**
 * The standby's ID-token grace (docs/protocol.md "Authentication": accepted while
 * `now <= exp + 86 400 s`): true while a token whose `exp` is `expiresAt` may still be sent to the
 * standby. Exact to the millisecond, as the mock server checks it. All times in ms.
 *
 * @example
 * isWithinGrace(Date.parse('2030-01-01T00:00:00Z'), Date.now(), 86_400_000);
 */
export function isWithinGrace(expiresAt: number, now: number, graceMs: number): boolean {
  return now <= expiresAt + graceMs;
}
