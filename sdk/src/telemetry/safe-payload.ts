// What a telemetry payload may carry (DECISIONS.md "The SDK in the field"): what the client hooks
// carry, never a token, an ID token, a key or a hardware id in clear. Payloads leave the app for an
// APM, so every value goes through here: a lease becomes its public fields, an error a copy whose
// texts name no secret, and anything else is copied without the fields that hold secrets.

/** A lease as payloads carry it: no `token`, no `claims` (they hold `hw`). */
export interface SafeLease {
  item: string;
  leaseId: string;
  licenseId: string;
  servedBy: 'main' | 'standby';
  /** End of the lease, in ms since the epoch. */
  expiresAt: number;
  /** When it is due for renewal, in ms since the epoch. */
  refreshAt: number;
}

/** Fields never copied into a payload, wherever they are. */
const SECRET_FIELDS = new Set([
  'token',
  'claims',
  'idToken',
  'hw',
  'hardwareId',
  'hardwareName',
  'privateKey',
  'key',
  'keys',
  'jwk',
  'x5c',
]);

/** Compact JWS and JWE (ID tokens, leases), and PEM blocks (keys, certificates). */
const SECRET_TEXT = /eyJ[\w-]+(?:\.[\w-]*)+|-----BEGIN [^-]+-----[^-]*-----END [^-]+-----/g;

/** How deep a payload is copied; deeper values (a long cause chain) are left out. */
const MAX_DEPTH = 6;

/**
 * A function that makes a value safe to publish: `secrets` (the client's hardware id and label)
 * are replaced wherever they appear in a text, as they are and as the query string carries them,
 * so an error's message or URL keeps its sense without them.
 *
 * @example
 * const safe = createPayloadReducer(['workstation-42']);
 * safe({ lease }); // { lease: { item, leaseId, licenseId, servedBy, expiresAt, refreshAt } }
 */
export function createPayloadReducer(
  secrets: readonly (string | undefined)[],
): (value: unknown) => unknown {
  const texts = secrets
    .flatMap((secret) => (secret ? [secret, encodeURIComponent(secret)] : []))
    // The longer first, so that a secret inside another is not left half replaced.
    .sort((a, b) => b.length - a.length);
  const text = (value: string) =>
    texts
      .reduce((out, secret) => out.replaceAll(secret, '[redacted]'), value)
      .replace(SECRET_TEXT, '[redacted]');

  const reduce = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return text(value);
    if (typeof value !== 'object' || value === null || value instanceof Date) return value;
    if (depth > MAX_DEPTH) return undefined;
    if (Array.isArray(value)) return value.map((item) => reduce(item, depth + 1));
    const source = value as Record<string, unknown>;
    if (typeof source.token === 'string' && typeof source.leaseId === 'string') {
      const { item, leaseId, licenseId, servedBy, expiresAt, refreshAt } = source;
      return { item, leaseId, licenseId, servedBy, expiresAt, refreshAt };
    }
    let copy: Record<string, unknown> = {};
    if (value instanceof Error) {
      // A copy, not the error: its message, URL and cause chain may name the hardware id. It
      // keeps `name`, `code`, `reason`, `status`... (own fields), so `isLicensingError` holds.
      const error = new Error(text(value.message));
      error.name = value.name;
      if (value.stack !== undefined) error.stack = text(value.stack);
      if (value.cause !== undefined) error.cause = reduce(value.cause, depth + 1);
      if (value instanceof AggregateError) {
        (error as { errors?: unknown }).errors = reduce(value.errors, depth + 1);
      }
      copy = error as unknown as Record<string, unknown>;
    }
    for (const [key, field] of Object.entries(source)) {
      if (!SECRET_FIELDS.has(key)) copy[key] = reduce(field, depth + 1);
    }
    return copy;
  };
  return (value) => reduce(value, 0);
}
