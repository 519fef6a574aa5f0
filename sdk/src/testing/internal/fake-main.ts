// The fake main licensing service (docs/protocol.md "The main service"): `/authz/.jwt` with its
// catalogue and per-user licenses, the product checkout action, and its public JWK set.
// Private to the testing kit.
import type { HttpHandler } from 'msw';
import { readEcho } from './authz-parameters.js';
import { apiError, jsonAnswer, notFound } from './fake-answers.js';
import { authenticate } from './fake-auth.js';
import {
  answerAuthz,
  authRules,
  decideOnMain,
  type FakeContext,
  itemClaims,
  serviceHandler,
} from './fake-context.js';
import { signJwt } from './sign-jwt.js';

const DIMENSIONS = new Set(['SEATS', 'USE_COUNT', 'USE_TIME']);
const MAX_CHECKOUT_LINES = 100;

/** The lines of a checkout body, or why they are refused. */
function readCheckoutLines(body: unknown): Array<{ productName: string }> | string {
  if (!Array.isArray(body) || body.length === 0 || body.length > MAX_CHECKOUT_LINES) {
    return `The body must be a JSON array of 1 to ${MAX_CHECKOUT_LINES} checkout lines`;
  }
  for (const [i, line] of body.entries()) {
    const { productName, qty, qtyDimension } = (line ?? {}) as Record<string, unknown>;
    if (
      typeof productName !== 'string' ||
      productName === '' ||
      typeof qty !== 'number' ||
      !Number.isInteger(qty) ||
      qty < 1 ||
      typeof qtyDimension !== 'string' ||
      !DIMENSIONS.has(qtyDimension)
    ) {
      return `Line ${i} needs productName, qty >= 1 and qtyDimension SEATS, USE_COUNT or USE_TIME`;
    }
  }
  return body as Array<{ productName: string }>;
}

/** The fake main service's handlers, for every route under `context.urls.main`. */
export function fakeMainHandlers(context: FakeContext): HttpHandler[] {
  const rules = authRules(context, 'main');

  const authz = async (request: Request) => {
    const caller = await authenticate(request, rules, context.now());
    if (caller instanceof Response) return caller;
    return answerAuthz(context, 'main', caller.sub, request);
  };

  const checkout = async (request: Request) => {
    const caller = await authenticate(
      request,
      { ...rules, schemes: ['IdToken', 'Bearer'] },
      context.now(),
    );
    if (caller instanceof Response) return caller;
    if (!(request.headers.get('content-type') ?? '').includes('application/json')) {
      return apiError(
        415,
        'unsupported_media_type',
        'Send Content-Type: application/json',
        context.now(),
      );
    }
    const lines = readCheckoutLines(await request.json().catch(() => undefined));
    if (typeof lines === 'string') return apiError(400, 'invalid_request', lines, context.now());
    const echo = readEcho(new URL(request.url).searchParams);
    const { privateKey, kid } = context.pki.main;
    const results = await Promise.all(
      lines.map(async ({ productName }) => {
        const decision = decideOnMain(context.state, caller.sub, productName);
        if (!decision.granted) {
          return {
            productName,
            granted: false,
            errorCode: 'noLicenseFound',
            errorDescription: `No license found for ${productName}`,
          };
        }
        const claims = itemClaims(
          context,
          'main',
          caller.sub,
          { name: productName },
          echo,
          decision,
        );
        return { productName, granted: true, jwt: await signJwt(claims, privateKey, kid) };
      }),
    );
    return jsonAnswer(results, context.now());
  };

  return [
    serviceHandler(context.urls.main, (request, route) => {
      const method = request.method;
      if (route === '/authz/.jwt' && (method === 'GET' || method === 'POST')) return authz(request);
      if (route === '/licensing/actions/checkout' && method === 'POST') return checkout(request);
      if (route === '/.well-known/jwks.json' && method === 'GET') {
        return jsonAnswer({ keys: [context.pki.main.jwk] }, context.now());
      }
      return notFound(request, context.now());
    }),
  ];
}
