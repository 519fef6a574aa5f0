import type { TrustedKey } from '../crypto/public-keys.js';
import { JwsError, parseCompactJws, verifyCompactJws } from '../crypto/verify-compact-jws.js';
import { ApiError } from '../http/api-error.js';

/** The JWS algorithms the event service accepts, for writes and read tokens alike. */
export const EVENT_JWS_ALGS = ['RS256', 'RS384', 'RS512'] as const;

/**
 * Checks the JWS body of `POST /events/put` and returns its payload as text. Its form always
 * (strict base64url, RS256/RS384/RS512, no `crit` or `b64`: else 400 `invalid_request`); its
 * signature through jose when writer keys are configured (none verifies: 401
 * `invalid_signature`). Without writer keys the signature is not checked (docs/protocol.md
 * "Writing events").
 *
 * @example
 * const text = await verifyEventJws(request.body, app.config.eventWriterKeys);
 */
export async function verifyEventJws(
  body: string,
  writerKeys: readonly TrustedKey[],
): Promise<string> {
  const token = body.trim();
  try {
    const { payload } =
      writerKeys.length > 0
        ? await verifyCompactJws(token, writerKeys, { algorithms: EVENT_JWS_ALGS })
        : parseCompactJws(token, EVENT_JWS_ALGS);
    return Buffer.from(payload).toString('utf8');
  } catch (err) {
    if (err instanceof JwsError && err.reason === 'bad_signature') {
      throw new ApiError(401, 'invalid_signature', err.message);
    }
    throw new ApiError(400, 'invalid_request', (err as Error).message);
  }
}
