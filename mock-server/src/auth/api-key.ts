import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/api-error.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Creates a check of the management API key that throws 401 `invalid_api_key` when the header
 * (`headerName`, default `Service-ApiKey`) is missing or wrong. Both sides are hashed first so
 * the comparison is constant time whatever the lengths.
 *
 * @example
 * const checkApiKey = createApiKeyCheck(app.apiKey);
 * checkApiKey(request.headers['service-apikey']);
 */
export function createApiKeyCheck(
  apiKey: string,
  headerName = 'Service-ApiKey',
): (given: string | string[] | undefined) => void {
  const expected = digest(apiKey);
  return (given) => {
    if (typeof given !== 'string' || given === '') {
      throw new ApiError(401, 'invalid_api_key', `The ${headerName} header is missing`);
    }
    if (!timingSafeEqual(digest(given), expected)) {
      throw new ApiError(401, 'invalid_api_key', `The ${headerName} header is wrong`);
    }
  };
}
