// Shared setup of the licensing client's msw unit tests (not a test file itself).
import { HttpResponse, http } from 'msw';
import type { IdTokenSource } from '../../src/auth/id-token-source.js';
import {
  assembleLicensingClient,
  type ClientOverrides,
} from '../../src/client/create-licensing-client.js';
import type { LicensingEventMap } from '../../src/client-hooks.js';
import { createMemoryLeaseStore } from '../../src/lease/memory-lease-store.js';
import {
  type LicensingClientOptions,
  resolveLicensingClientOptions,
} from '../../src/options/licensing-client.js';
import { answerAuthz, fakeServices, storeWithFakeKeys } from './fake-licensing.js';

export const MAIN = 'http://main.test';
export const STANDBY = 'http://standby.test';
export const HASH = 'ab'.repeat(32);
/** The fake services' root, as an app embeds it. */
export const PEM = fakeServices.trustedRoot.pem;
export const NOW = Date.UTC(2030, 0, 1);

/** The fake services' clock (ms); tests with fake timers point it at `Date.now`. */
export const serviceClock = { now: () => NOW };

/** One scripted answer of a fake service. */
export type Reply =
  | 'ok'
  | 'deny'
  | 'reset'
  | 'hang'
  | 'html200'
  | 'dormant'
  | number
  | ((request: Request) => Response | Promise<Response>);

/** Records every request of a fake service. */
export interface Hits {
  count: number;
  requests: Request[];
}

function answer(reply: Reply, request: Request, service: 'main' | 'standby', deny: string[]) {
  const search = new URL(request.url).search;
  if (typeof reply === 'function') return reply(request);
  switch (reply) {
    case 'ok':
    case 'deny':
      return new HttpResponse(
        answerAuthz(
          search,
          service,
          Math.floor(serviceClock.now() / 1000),
          reply === 'deny' ? deny : [],
        ),
        { headers: { 'content-type': 'application/jwt' } },
      );
    case 'reset':
      return HttpResponse.error();
    case 'hang':
      // Never answers; settles quietly once the client gives up on the request.
      return new Promise<Response>((resolve) => {
        request.signal.addEventListener('abort', () => resolve(HttpResponse.error()));
      });
    case 'html200':
      return new HttpResponse('<html>maintenance</html>', {
        headers: { 'content-type': 'text/html' },
      });
    case 'dormant':
      return HttpResponse.json({ error: 'standby_dormant' }, { status: 403 });
    default:
      return reply === 503
        ? new HttpResponse('<html>503</html>', {
            status: 503,
            headers: { 'content-type': 'text/html' },
          })
        : HttpResponse.json({ error: `http_${reply}` }, { status: reply });
  }
}

/**
 * An msw handler for `<base>/authz/.jwt` that plays `replies` in order (the last one repeats)
 * and counts requests.
 */
export function authzHandler(
  service: 'main' | 'standby',
  replies: Reply[],
  hits: Hits = { count: 0, requests: [] },
  deny: string[] = [],
) {
  const base = service === 'main' ? MAIN : STANDBY;
  const handler = http.get(`${base}/authz/.jwt`, ({ request }) => {
    const reply = replies[Math.min(hits.count, replies.length - 1)]!;
    hits.count += 1;
    hits.requests.push(request);
    return answer(reply, request, service, deny);
  });
  return { handler, hits };
}

/** A fake ID-token source: counts calls, can be told to be in grace or to fail. */
export function fakeIdTokens(state: { inGrace?: boolean; fail?: unknown } = {}) {
  const calls: Array<{ service: string; forceRefresh?: boolean | undefined }> = [];
  const source: IdTokenSource & { calls: typeof calls } = {
    calls,
    expiresAt: NOW,
    async get(service, options = {}) {
      calls.push({ service, forceRefresh: options.forceRefresh });
      if (state.fail) throw state.fail;
      return { token: `idtoken-${calls.length}`, inGrace: state.inGrace ?? false, expiresAt: NOW };
    },
  };
  return source;
}

/**
 * Builds a client on the fake services (ServiceKeyHash auth, or ID-token auth with the given fake
 * source; a lease store that already holds both services' keys, so no JWKS is fetched),
 * recording every event.
 */
export function makeClient(
  overrides: Partial<LicensingClientOptions> = {},
  parts: ClientOverrides = {},
) {
  const options = resolveLicensingClientOptions({
    mainUrl: MAIN,
    standbyUrl: STANDBY,
    auth: parts.idTokens
      ? { idToken: () => 'unused: the fake source answers' }
      : { serviceKeyHash: HASH },
    trust: { rootCertificates: [{ pem: PEM, keyId: 'root-1' }] },
    hardwareId: 'H1',
    version: '1.0',
    now: () => NOW,
    leaseStore: seededStore(),
    ...overrides,
    failover: { backoffBaseMs: 1, backoffMaxMs: 2, ...overrides.failover },
  });
  const client = assembleLicensingClient(options, parts);
  const events: Array<{ name: keyof LicensingEventMap; event: unknown }> = [];
  for (const name of [
    'failover',
    'failback',
    'attemptFailed',
    'leaseRenewed',
    'renewFailed',
    'idTokenGrace',
    'circuitOpen',
    'circuitClose',
  ] as const) {
    client.on(name, (event) => events.push({ name, event }));
  }
  const named = (name: keyof LicensingEventMap) =>
    events.filter((e) => e.name === name).map((e) => e.event);
  return { client, events, named };
}

/** A memory lease store that already holds both fake services' signing keys. */
export function seededStore() {
  const store = createMemoryLeaseStore();
  void store.save(storeWithFakeKeys());
  return store;
}

/** `GET <standby>/enabled` answering `value`, counting requests. */
export function enabledHandler(
  value: () => boolean | Promise<boolean>,
  hits: Hits = { count: 0, requests: [] },
) {
  const handler = http.get(`${STANDBY}/enabled`, async ({ request }) => {
    hits.count += 1;
    hits.requests.push(request);
    return HttpResponse.json(await value());
  });
  return { handler, hits };
}

/** `GET <main>/.well-known/jwks.json` (the Strategy B probe) with a scripted status. */
export function mainJwksHandler(up: () => boolean, hits: Hits = { count: 0, requests: [] }) {
  const handler = http.get(`${MAIN}/.well-known/jwks.json`, () => {
    hits.count += 1;
    return up() ? HttpResponse.json({ keys: [] }) : HttpResponse.error();
  });
  return { handler, hits };
}
