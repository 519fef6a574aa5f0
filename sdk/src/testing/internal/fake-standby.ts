// The fake standby licensing service (docs/protocol.md "The standby service"): active or dormant,
// status checks, `/authz/.jwt` granting every item, its JWK set, the ID-token grace of 24 hours.
// It has no management API: a test switches it with `setStandby`. Private to the testing kit.
import type { HttpHandler } from 'msw';
import { apiError, jsonAnswer, notFound } from './fake-answers.js';
import { authenticate } from './fake-auth.js';
import { answerAuthz, authRules, type FakeContext, serviceHandler } from './fake-context.js';

const API_KEY_HEADER = 'service-apikey';
const SIGNING_KEY_HEADER = 'service-signingkeyid';
const MANAGEMENT_ROUTES = new Set(['/enabled', '/disabled', '/signing-keys']);

/** The fake standby's handlers, for every route under `context.urls.standby`. */
export function fakeStandbyHandlers(context: FakeContext): HttpHandler[] {
  const rules = authRules(context, 'standby');
  const dormant = () =>
    apiError(403, 'standby_dormant', 'The standby licensing service is dormant', context.now());

  const authz = async (request: Request) => {
    const caller = await authenticate(request, rules, context.now());
    if (caller instanceof Response) return caller;
    if (context.state.standby === 'dormant') return dormant();
    const keyId = request.headers.get(SIGNING_KEY_HEADER);
    if (keyId !== null && keyId !== context.pki.standby.kid) {
      return apiError(400, 'unknown_signing_key', `No signing key ${keyId}`, context.now());
    }
    return answerAuthz(context, 'standby', caller.sub, request);
  };

  return [
    serviceHandler(context.urls.standby, async (request, route) => {
      const method = request.method;
      if (request.headers.has(API_KEY_HEADER) && MANAGEMENT_ROUTES.has(route)) {
        return apiError(
          401,
          'invalid_api_key',
          'The fake standby has no management API: switch it with setStandby()',
          context.now(),
        );
      }
      if ((route === '/enabled' || route === '/disabled') && method === 'GET') {
        const caller = await authenticate(request, rules, context.now());
        if (caller instanceof Response) return caller;
        const active = context.state.standby === 'active';
        return jsonAnswer(route === '/enabled' ? active : !active, context.now());
      }
      if (route === '/authz/.jwt' && (method === 'GET' || method === 'POST')) return authz(request);
      if (route === '/.well-known/jwks.json' && method === 'GET') {
        const caller = await authenticate(request, rules, context.now());
        if (caller instanceof Response) return caller;
        if (context.state.standby === 'dormant') return dormant();
        return jsonAnswer({ keys: [context.pki.standby.jwk] }, context.now());
      }
      return notFound(request, context.now());
    }),
  ];
}
