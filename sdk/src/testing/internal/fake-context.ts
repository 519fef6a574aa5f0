// What the fake services share: their keys, base URLs, clock and the state a test changes
// (`setStandby`, `grant`, `revoke`), and the lease tokens both issue. Private to the testing kit.
import type { HttpHandler } from 'msw';
import { http } from 'msw';
import {
  type AuthzItem,
  type AuthzParameters,
  InvalidAuthzRequest,
  parseAuthzParameters,
} from './authz-parameters.js';
import { apiError, tokensAnswer } from './fake-answers.js';
import type { FakeAuthRules } from './fake-auth.js';
import type { FakePki } from './fake-pki.js';
import { routeOf } from './service-url.js';
import { signJwt } from './sign-jwt.js';

/** Lease length, in seconds (docs/protocol.md "Token claims"). */
const LEASE_SECONDS = 28_800;
/** Recommended refresh, in seconds after `iat`: 75 % of the lease. */
const REFRESH_SECONDS = 21_600;

/** What a test changes while the fakes run. */
export interface FakeState {
  standby: 'active' | 'dormant';
  /** Items main grants to everyone; undefined: every item. */
  catalogue: ReadonlySet<string> | undefined;
  /** Licenses from `grant`: sub → item → license id. */
  licenses: Map<string, Map<string, string>>;
  /** Items `revoke` took from a user: sub → items. */
  revoked: Map<string, Set<string>>;
}

/** Everything the fake services' handlers read. */
export interface FakeContext {
  pki: FakePki;
  /** Base URLs without trailing slash. */
  urls: { main: string; standby: string; idp: string | undefined };
  /** The ID tokens' `iss` and `aud`. */
  issuer: { iss: string; audience: string };
  serviceKeyHash: string;
  now: () => number;
  state: FakeState;
}

/** How main decides an item for a user: its license id when granted, false when denied. */
export type ItemDecision = { granted: true; licenseId?: string } | { granted: false };

/** Main's decision (docs/protocol.md "The main service"): revoked, licensed, in the catalogue. */
export function decideOnMain(state: FakeState, sub: string, item: string): ItemDecision {
  if (state.revoked.get(sub)?.has(item)) return { granted: false };
  const licenseId = state.licenses.get(sub)?.get(item);
  if (licenseId !== undefined) return { granted: true, licenseId };
  if (state.catalogue === undefined || state.catalogue.has(item)) return { granted: true };
  return { granted: false };
}

/** The auth rules of `service` (main: no grace, Bearer too; standby: 24 h grace). */
export function authRules(context: FakeContext, service: 'main' | 'standby'): FakeAuthRules {
  return {
    realm: service,
    schemes:
      service === 'main' ? ['IdToken', 'Bearer', 'ServiceKeyHash'] : ['IdToken', 'ServiceKeyHash'],
    graceSeconds: service === 'main' ? 0 : 86_400,
    issuer: {
      publicKey: context.pki.idp.publicKey,
      iss: context.issuer.iss,
      audience: context.issuer.audience,
    },
    serviceKeyHash: context.serviceKeyHash,
  };
}

/** The claims of one item's answer: a lease, or a denial (`<item>_errorCode`). */
export function itemClaims(
  context: FakeContext,
  service: 'main' | 'standby',
  sub: string,
  item: AuthzItem,
  echo: AuthzParameters['echo'],
  decision: ItemDecision,
): Record<string, unknown> {
  const iat = Math.floor(context.now() / 1000);
  const base = { iss: context.urls[service], sub, iat, exp: iat + LEASE_SECONDS };
  if (!decision.granted) {
    return {
      [`${item.name}_errorCode`]: 'noLicenseFound',
      [`${item.name}_errorMessage`]: `No license found for ${item.name}`,
      ...base,
      ...echo,
    };
  }
  return {
    [item.name]: true,
    lic: decision.licenseId ?? item.licenseId ?? crypto.randomUUID(),
    jti: item.leaseId ?? crypto.randomUUID(),
    ...base,
    rfr: iat + REFRESH_SECONDS,
    ...echo,
  };
}

/**
 * The signed tokens answering an `/authz/.jwt` request on `service`, in request order: one per
 * item (main decides each; the standby grants all), or one naming every released lease id.
 */
export function issueTokens(
  context: FakeContext,
  service: 'main' | 'standby',
  sub: string,
  parameters: AuthzParameters,
): Promise<string[]> {
  const { privateKey, kid } = context.pki[service];
  if (parameters.release) {
    const iat = Math.floor(context.now() / 1000);
    const claims: Record<string, unknown> = {};
    for (const id of parameters.release) claims[id] = true;
    Object.assign(claims, { iss: context.urls[service], sub, iat, exp: iat + LEASE_SECONDS });
    return Promise.all([signJwt(claims, privateKey, kid)]);
  }
  return Promise.all(
    parameters.items.map((item) => {
      const decision =
        service === 'main'
          ? decideOnMain(context.state, sub, item.name)
          : { granted: true as const };
      return signJwt(
        itemClaims(context, service, sub, item, parameters.echo, decision),
        privateKey,
        kid,
      );
    }),
  );
}

/**
 * The answer of `service` to an authenticated `/authz/.jwt` request by `sub`: its parameters from
 * the query and, for a POST form, the body; the signed tokens, or 400 `invalid_request`.
 */
export async function answerAuthz(
  context: FakeContext,
  service: 'main' | 'standby',
  sub: string,
  request: Request,
): Promise<Response> {
  const query = new URL(request.url).search.slice(1);
  const type = request.headers.get('content-type') ?? '';
  const form = request.method === 'POST' && type.includes('application/x-www-form-urlencoded');
  try {
    const parameters = parseAuthzParameters(query, form ? await request.text() : '');
    return tokensAnswer(await issueTokens(context, service, sub, parameters), context.now());
  } catch (error) {
    if (!(error instanceof InvalidAuthzRequest)) throw error;
    return apiError(400, 'invalid_request', error.message, context.now());
  }
}

/**
 * One msw handler for every route under `base`, dispatching on the route (the path below the
 * base, e.g. `/authz/.jwt`).
 */
export function serviceHandler(
  base: string,
  answer: (request: Request, route: string) => Promise<Response> | Response,
): HttpHandler {
  return http.all(`${base}/*`, ({ request }) => answer(request, routeOf(base, request.url) ?? '/'));
}
