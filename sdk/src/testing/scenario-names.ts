/**
 * The named outage drills, the same names as the mock server's `GET /admin/scenarios`
 * (`POST /admin/scenarios/<name>` applies one there; {@link scenarioHandlers} gives its msw
 * handlers here), so a drill reads the same in a unit test and against the mock. The SDK does not
 * depend on the mock server: the list is kept in both packages and a test checks that they agree.
 *
 * - `main-down`: main resets every connection (a network error).
 * - `main-hang`: main accepts every request and never answers.
 * - `main-503`: main answers 503 with an HTML error page.
 * - `main-rate-limited`: main answers 429 `too_many_requests` with `Retry-After: 1`.
 * - `main-jwks-outage`: only main's JWKS fails (503).
 * - `idp-down`: the ID-token issuer resets every connection; main and the standby are up.
 * - `captive-portal`: main answers 200 with an HTML login page.
 * - `standby-slow`: the standby answers every request 2.5 s late (`delayMs` in msw).
 * - `standby-down`: the standby resets every connection.
 * - `events-down`: the event data service resets every connection.
 *
 * @example
 * for (const name of scenarioNames) console.log(name);
 */
export const scenarioNames = [
  'main-down',
  'main-hang',
  'main-503',
  'main-rate-limited',
  'main-jwks-outage',
  'idp-down',
  'captive-portal',
  'standby-slow',
  'standby-down',
  'events-down',
] as const;

/** A name from {@link scenarioNames}. */
export type ScenarioName = (typeof scenarioNames)[number];

/**
 * Whether `name` is one of {@link scenarioNames}.
 *
 * @example
 * if (!isScenarioName(process.env.DRILL ?? '')) throw new Error('unknown drill');
 */
export function isScenarioName(name: string): name is ScenarioName {
  return (scenarioNames as readonly string[]).includes(name);
}
