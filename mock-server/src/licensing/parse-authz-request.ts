// The rules of an `/authz/.jwt` request live in the wire package the SDK's fake services share
// (wire/src/parse-authz-request.ts, bundled into the mock's build); here they answer with the
// mock's ApiError.
import {
  type AuthzRequest,
  InvalidAuthzRequest,
  type ParseAuthzRequestOptions,
  parseAuthzRequest as parseWireRequest,
} from '@standby-licensing/wire';
import { ApiError } from '../http/api-error.js';

/**
 * Parses the parameters of an `/authz/.jwt` request (the raw query string and, for a POST, the
 * raw form body), with the wire package's rules. Throws a 400 `invalid_request` ApiError for bad
 * input, a request naming neither an item nor a release, more than `maxItems` items or lease ids,
 * or an item or lease id named like a token claim.
 *
 * @example
 * parseAuthzRequest('ItemA&hw=H1;name=Desk&version=1.2');
 * // { items: [{ name: 'ItemA' }], release: undefined, echo: { hw: 'H1', hwName: 'Desk', version: '1.2' } }
 */
export function parseAuthzRequest(
  query: string,
  body?: string,
  options: ParseAuthzRequestOptions = {},
): AuthzRequest {
  try {
    return parseWireRequest(query, body, options);
  } catch (error) {
    if (error instanceof InvalidAuthzRequest) {
      throw new ApiError(400, 'invalid_request', error.message);
    }
    throw error;
  }
}
