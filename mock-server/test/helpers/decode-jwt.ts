// Test helper: reads the header and payload of a compact JWS without verifying it.

/** Decodes one segment of a compact JWS (test helper). */
export function decodeSegment(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

/** Header and payload of a compact JWS (test helper; no verification). */
export function decodeJwt(token: string): {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
} {
  const [header, payload] = token.split('.') as [string, string];
  return { header: decodeSegment(header), payload: decodeSegment(payload) };
}
