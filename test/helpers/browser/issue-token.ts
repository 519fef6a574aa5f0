/** What the mock server's issuer (`POST <idpUrl>/token`) signs. */
export interface TokenRequest {
  sub: string;
  /** Extra claims, e.g. `{ '*': true }` for an event-feed read token. */
  claims?: Record<string, unknown>;
  expiresInSeconds?: number;
}

/**
 * An RS256 token from a mock server's built-in issuer, fetched in Node: an ID token for the
 * licensing services, or (with feed claims) a read token for the event service.
 */
export async function issueToken(idpUrl: string, request: TokenRequest): Promise<string> {
  const response = await fetch(`${idpUrl}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(request),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${response.url}`);
  return ((await response.json()) as { id_token: string }).id_token;
}
