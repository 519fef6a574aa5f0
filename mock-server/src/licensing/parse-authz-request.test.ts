import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/api-error.js';
import { parseAuthzRequest } from './parse-authz-request.js';

// The rules themselves are tested beside them, in wire/src/parse-authz-request.test.ts.
describe('parseAuthzRequest (mock server)', () => {
  it('answers a refused request with 400 invalid_request and the reason', () => {
    let refused: unknown;
    try {
      parseAuthzRequest('ItemA&exp');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).toBody()).toEqual({
      error: 'invalid_request',
      error_description: 'exp is a token claim and cannot name an item or a lease',
    });
    expect(refused).toMatchObject({ statusCode: 400 });
  });

  it('passes the configured cap on', () => {
    expect(parseAuthzRequest('A&B&C', undefined, { maxItems: 3 }).items).toHaveLength(3);
    expect(() => parseAuthzRequest('A&B&C&D', undefined, { maxItems: 3 })).toThrow(ApiError);
  });
});
