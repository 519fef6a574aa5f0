import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.js';

/** Header carrying the standby management API key. */
export const API_KEY_HEADER = 'service-apikey';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Creates a check of the management API key that throws 401 `invalid_api_key` when the header
 * is missing or wrong. Both sides are hashed first so the comparison is constant time whatever
 * the lengths.
 *
 * @example
 * const checkApiKey = createApiKeyCheck(app.apiKey);
 * checkApiKey(request.headers['service-apikey']);
 */
export function createApiKeyCheck(apiKey: string): (given: string | string[] | undefined) => void {
  const expected = digest(apiKey);
  return (given) => {
    if (typeof given !== 'string' || given === '') {
      throw new ApiError(401, 'invalid_api_key', 'The Service-ApiKey header is missing');
    }
    if (!timingSafeEqual(digest(given), expected)) {
      throw new ApiError(401, 'invalid_api_key', 'The Service-ApiKey header is wrong');
    }
  };
}
