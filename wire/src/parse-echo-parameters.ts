// The request details a licensing call echoes into its tokens (docs/protocol.md "Token claims").

/** Request details echoed into every token. */
export interface AuthzEcho {
  hw?: string;
  hwName?: string;
  process?: string;
  version?: string;
  consumptionMode?: string;
}

/** Splits `<main>;k=v;k2=v2` into its main part and attributes. */
export function splitAttributes(value: string): [string, Map<string, string>] {
  const [first = '', ...rest] = value.split(';');
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq > 0) attributes.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return [first, attributes];
}

/** Reads `hw` (`<id>` or `<id>;name=<label>`) into `echo.hw` and `echo.hwName`. */
export function readHardware(value: string, echo: AuthzEcho): void {
  const [id, attributes] = splitAttributes(value);
  if (id !== '') echo.hw = id;
  const label = attributes.get('name');
  if (label !== undefined) echo.hwName = label;
}

/**
 * The request details a licensing call echoes into its tokens, from a query's `hw` (`<id>` or
 * `<id>;name=<label>`), `process` and `version` (the main service's checkout action). Takes a
 * parsed query object (Fastify's `request.query`) or `URLSearchParams` (its first value of each).
 *
 * @example
 * parseEchoParameters(new URLSearchParams('hw=H1;name=Desk&version=1.2'));
 * // { hw: 'H1', hwName: 'Desk', version: '1.2' }
 */
export function parseEchoParameters(
  query: URLSearchParams | Readonly<Record<string, string | undefined>>,
): AuthzEcho {
  const read = (name: string): string | undefined =>
    query instanceof URLSearchParams ? (query.get(name) ?? undefined) : query[name];
  const echo: AuthzEcho = {};
  const hw = read('hw');
  if (hw !== undefined) readHardware(hw, echo);
  const process = read('process');
  if (process !== undefined) echo.process = process;
  const version = read('version');
  if (version !== undefined) echo.version = version;
  return echo;
}
