import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { type PrismViolation, readViolations } from './prism-proxy.js';

/** One request of the traffic and what it is meant to be. */
export interface TrafficStep {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * `valid`: the request is one the document allows (credentials may still be wrong), so Prism
   * must find nothing about it; `invalid`: deliberately outside the document (a missing
   * credential, a refused body or parameter, an unknown path), so request findings are expected.
   * Responses must match the document either way.
   */
  intent: 'valid' | 'invalid';
  /** The status the server must answer: the traffic really exercises what it names. */
  status: number;
}

/** What one step got. */
export interface TrafficResult {
  step: TrafficStep;
  status: number;
  contentType: string;
  violations: PrismViolation[];
}

/**
 * Limits of the validating tool, not of the document (docs/conformance.md "OpenAPI"): a finding
 * these match is reported apart and never bends the document.
 */
export const TOOL_LIMITS: ReadonlyArray<{
  why: string;
  matches(v: PrismViolation, step: TrafficStep): boolean;
}> = [
  {
    why: 'Prism checks format int64 against 2^53 - 1; eventReceived is int64 nanoseconds since the epoch (about 1.8e18)',
    matches: (v) =>
      v.location[0] === 'response' &&
      v.location.at(-1) === 'eventReceived' &&
      v.message.includes('<= 9007199254740991'),
  },
];

/** True for a finding that says the document is wrong about this step. */
export function countsAgainstDocument(result: TrafficResult, v: PrismViolation): boolean {
  if (TOOL_LIMITS.some((limit) => limit.matches(v, result.step))) return false;
  return v.location[0] === 'response' || result.step.intent === 'valid';
}

function rsaKeyPair(): { privateKey: KeyObject; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

function compactJws(payload: unknown, key: KeyObject): string {
  const enc = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${enc({ alg: 'RS256', typ: 'JOSE' })}.${enc(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

/** The mock server the traffic runs against: admin on, active, a known key and event writer. */
export interface TrafficServer {
  server: RunningServer;
  origin: string;
  writerKey: KeyObject;
  close(): Promise<void>;
}

/** Starts the mock server for {@link driveTraffic}. */
export async function startTrafficServer(): Promise<TrafficServer> {
  const writer = rsaKeyPair();
  const server = await startServer({
    port: 0,
    admin: true,
    state: 'active',
    apiKey: 'traffic-api-key',
    eventWriterKeys: [writer.publicPem],
  });
  return {
    server,
    origin: new URL(server.info.standbyUrl).origin,
    writerKey: writer.privateKey,
    close: () => server.close(),
  };
}

/**
 * Sends the traffic through `origin` (the validating proxy) to `target`: every operation of the
 * document with its success and its error answers (event writes and reads, form posts, faults,
 * 401/403/404/413/415 refusals). Throws when the server answers a step with another status than
 * it names.
 */
export async function driveTraffic(
  origin: string,
  target: TrafficServer,
): Promise<TrafficResult[]> {
  const results: TrafficResult[] = [];
  const send = async (step: TrafficStep): Promise<Response> => {
    const res = await fetch(`${origin}${step.path}`, {
      method: step.method,
      headers: step.headers ?? {},
      ...(step.body === undefined ? {} : { body: step.body }),
    });
    const violations = readViolations(res);
    results.push({
      step,
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      violations,
    });
    if (res.status !== step.status) {
      const text = await res.clone().text();
      throw new Error(
        `${step.name}: answered ${res.status}, expected ${step.status}: ${text.slice(0, 300)}`,
      );
    }
    return res;
  };
  const json = (value: unknown) => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  const valid = 'valid' as const;
  const invalid = 'invalid' as const;

  // --- ID-token issuer ---
  await send({
    name: 'discovery',
    method: 'GET',
    path: '/idp/.well-known/openid-configuration',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'issuer JWKS',
    method: 'GET',
    path: '/idp/.well-known/jwks.json',
    intent: valid,
    status: 200,
  });
  const mint = async (name: string, body: unknown) => {
    const res = await send({
      name,
      method: 'POST',
      path: '/idp/token',
      ...json(body),
      intent: valid,
      status: 200,
    });
    return ((await res.json()) as { id_token: string }).id_token;
  };
  const idToken = await mint('mint an ID token', { sub: 'traffic-user' });
  const readToken = await mint('mint a read token', { sub: 'reader', claims: { '*': true } });
  const otherFeedToken = await mint('mint a token for another feed', {
    sub: 'reader',
    claims: { 'other-feed': true },
  });
  await send({
    name: 'token without sub',
    method: 'POST',
    path: '/idp/token',
    ...json({}),
    intent: invalid,
    status: 400,
  });
  await send({
    name: 'token body over 1 MiB',
    method: 'POST',
    path: '/idp/token',
    ...json({ sub: 'x'.repeat(1_100_000) }),
    intent: valid,
    status: 413,
  });

  const asIdToken = { authorization: `IdToken ${idToken}` };
  const asBearer = { authorization: `Bearer ${idToken}` };
  const keyHash = createHash('sha256')
    .update(target.server.app.keyring.main.publicPem)
    .digest('hex');
  const asService = { authorization: `ServiceKeyHash ${keyHash}` };
  const apiKey = { 'service-apikey': 'traffic-api-key' };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  // --- standby ---
  await send({
    name: 'enabled (IdToken)',
    method: 'GET',
    path: '/standby/enabled',
    headers: asIdToken,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'enabled (ServiceKeyHash)',
    method: 'GET',
    path: '/standby/enabled',
    headers: asService,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'enabled without Authorization',
    method: 'GET',
    path: '/standby/enabled',
    intent: invalid,
    status: 401,
  });
  await send({
    name: 'enabled with a garbage token',
    method: 'GET',
    path: '/standby/enabled',
    headers: { authorization: 'IdToken not.a.jwt' },
    intent: valid,
    status: 401,
  });
  await send({
    name: 'disabled (status)',
    method: 'GET',
    path: '/standby/disabled',
    headers: asIdToken,
    intent: valid,
    status: 200,
  });
  for (const method of ['PATCH', 'POST', 'PUT']) {
    await send({
      name: `${method} enabled`,
      method,
      path: '/standby/enabled',
      headers: apiKey,
      intent: valid,
      status: 200,
    });
  }
  await send({
    name: 'enable with a wrong key',
    method: 'POST',
    path: '/standby/enabled',
    headers: { 'service-apikey': 'wrong' },
    intent: valid,
    status: 401,
  });
  await send({
    name: 'enable with a text body',
    method: 'POST',
    path: '/standby/enabled',
    headers: { ...apiKey, 'content-type': 'text/plain' },
    body: 'on',
    intent: invalid,
    status: 415,
  });
  await send({
    name: 'new signing key',
    method: 'POST',
    path: '/standby/signing-keys',
    headers: apiKey,
    intent: valid,
    status: 201,
  });
  await send({
    name: 'standby JWKS',
    method: 'GET',
    path: '/standby/.well-known/jwks.json',
    headers: asIdToken,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'standby consume',
    method: 'GET',
    path: '/standby/authz/.jwt?ItemA&ItemB&hw=pc-1&version=2.0',
    headers: asIdToken,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'standby consume (ServiceKeyHash)',
    method: 'GET',
    path: '/standby/authz/.jwt?ItemA',
    headers: asService,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'standby form post',
    method: 'POST',
    path: '/standby/authz/.jwt',
    headers: { ...asIdToken, ...form },
    body: 'ItemA&hw=pc-1',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'standby release',
    method: 'GET',
    path: '/standby/authz/.jwt?release&J-1',
    headers: asIdToken,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'standby no items',
    method: 'GET',
    path: '/standby/authz/.jwt?hw=pc-1',
    headers: asIdToken,
    intent: valid,
    status: 400,
  });
  await send({
    name: 'standby unknown signing key',
    method: 'GET',
    path: '/standby/authz/.jwt?ItemA',
    headers: { ...asIdToken, 'service-signingkeyid': 'nope' },
    intent: valid,
    status: 400,
  });
  await send({
    name: 'standby consume without Authorization',
    method: 'GET',
    path: '/standby/authz/.jwt?ItemA',
    intent: invalid,
    status: 401,
  });
  await send({
    name: 'disable (GET with key)',
    method: 'GET',
    path: '/standby/disabled',
    headers: apiKey,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'dormant consume',
    method: 'GET',
    path: '/standby/authz/.jwt?ItemA',
    headers: asIdToken,
    intent: valid,
    status: 403,
  });
  await send({
    name: 'dormant JWKS',
    method: 'GET',
    path: '/standby/.well-known/jwks.json',
    headers: asIdToken,
    intent: valid,
    status: 403,
  });
  for (const method of ['PATCH', 'POST', 'PUT']) {
    await send({
      name: `${method} disabled`,
      method,
      path: '/standby/disabled',
      headers: apiKey,
      intent: valid,
      status: 200,
    });
  }
  await send({
    name: 're-enable',
    method: 'PUT',
    path: '/standby/enabled',
    headers: apiKey,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'standby has no JSON form',
    method: 'GET',
    path: '/standby/authz/.json?ItemA',
    headers: asIdToken,
    intent: invalid,
    status: 404,
  });

  // --- main ---
  await send({
    name: 'main JWKS',
    method: 'GET',
    path: '/main/.well-known/jwks.json',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'main consume (IdToken)',
    method: 'GET',
    path: '/main/authz/.jwt?ItemA',
    headers: asIdToken,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'main consume (Bearer)',
    method: 'GET',
    path: '/main/authz/.jwt?ItemA',
    headers: asBearer,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'main consume (ServiceKeyHash)',
    method: 'GET',
    path: '/main/authz/.jwt?ItemA',
    headers: asService,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'main form post',
    method: 'POST',
    path: '/main/authz/.jwt',
    headers: { ...asBearer, ...form },
    body: 'ItemA&ItemB=;licenseId=L-1',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'main JSON form',
    method: 'GET',
    path: '/main/authz/.json?ItemA',
    headers: asIdToken,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'main JSON release (form)',
    method: 'POST',
    path: '/main/authz/.json',
    headers: { ...asIdToken, ...form },
    body: 'release&J-1',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'main JSON form of two items',
    method: 'GET',
    path: '/main/authz/.json?ItemA&ItemB',
    headers: asIdToken,
    intent: valid,
    status: 400,
  });
  await send({
    name: 'main consume without Authorization',
    method: 'GET',
    path: '/main/authz/.jwt?ItemA',
    intent: invalid,
    status: 401,
  });
  const line = { productName: 'ItemA', qty: 1, qtyDimension: 'SEATS' };
  await send({
    name: 'checkout',
    method: 'POST',
    path: '/main/licensing/actions/checkout',
    headers: { ...asIdToken, 'content-type': 'application/json' },
    body: JSON.stringify([line]),
    intent: valid,
    status: 200,
  });
  await send({
    name: 'checkout with a bad line',
    method: 'POST',
    path: '/main/licensing/actions/checkout',
    headers: { ...asIdToken, 'content-type': 'application/json' },
    body: JSON.stringify([{ ...line, qty: 0 }]),
    intent: invalid,
    status: 400,
  });
  await send({
    name: 'checkout as text',
    method: 'POST',
    path: '/main/licensing/actions/checkout',
    headers: { ...asIdToken, 'content-type': 'text/plain' },
    body: 'ItemA',
    intent: invalid,
    status: 415,
  });
  await send({
    name: 'checkout without Authorization',
    method: 'POST',
    path: '/main/licensing/actions/checkout',
    ...json([line]),
    intent: invalid,
    status: 401,
  });
  await send({
    name: 'main: no DELETE on /authz/.jwt',
    method: 'DELETE',
    path: '/main/authz/.jwt',
    headers: asIdToken,
    intent: invalid,
    status: 404,
  });

  // --- faults on main (admin) ---
  await send({
    name: 'fault: 503 with Retry-After',
    method: 'POST',
    path: '/admin/faults',
    ...json({ route: '/authz/.jwt', mode: 'error', status: 503, retryAfterSeconds: 7, count: 1 }),
    intent: valid,
    status: 201,
  });
  await send({
    name: 'main consume during a 503 fault',
    method: 'GET',
    path: '/main/authz/.jwt?ItemA',
    headers: asIdToken,
    intent: valid,
    status: 503,
  });
  await send({
    name: 'fault: 500',
    method: 'POST',
    path: '/admin/faults',
    ...json({ route: '/.well-known/jwks.json', mode: 'error', status: 500, count: 1 }),
    intent: valid,
    status: 201,
  });
  await send({
    name: 'main JWKS during a 500 fault',
    method: 'GET',
    path: '/main/.well-known/jwks.json',
    intent: valid,
    status: 500,
  });
  await send({
    name: 'fault: delay',
    method: 'POST',
    path: '/admin/faults',
    ...json({ mode: 'delay', delayMs: 20, count: 1 }),
    intent: valid,
    status: 201,
  });
  await send({
    name: 'main checkout during a delay fault',
    method: 'POST',
    path: '/main/licensing/actions/checkout',
    headers: { ...asIdToken, 'content-type': 'application/json' },
    body: JSON.stringify([line]),
    intent: valid,
    status: 200,
  });
  await send({
    name: 'fault with a bad mode',
    method: 'POST',
    path: '/admin/faults',
    ...json({ mode: 'explode' }),
    intent: invalid,
    status: 400,
  });
  await send({
    name: 'list faults',
    method: 'GET',
    path: '/admin/faults',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'clear faults',
    method: 'DELETE',
    path: '/admin/faults',
    intent: valid,
    status: 200,
  });

  // --- events ---
  const source = `traffic-${Date.now()}`;
  const event = (n: number) => ({ eventType: 'T', eventSourceId: source, n });
  await send({
    name: 'write one event (JSON)',
    method: 'POST',
    path: '/events/put',
    ...json(event(1)),
    intent: valid,
    status: 201,
  });
  await send({
    name: 'write a batch (JSON)',
    method: 'POST',
    path: '/events/put',
    ...json([event(2), { ...event(3), eventObjectType: 'License', eventObjectId: 'L-1' }]),
    intent: valid,
    status: 201,
  });
  await send({
    name: 'write a batch (JWS)',
    method: 'POST',
    path: '/events/put',
    headers: { 'content-type': 'application/jose' },
    body: compactJws([event(4), event(5)], target.writerKey),
    intent: valid,
    status: 201,
  });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  await send({
    name: 'write a JWS of an unknown key',
    method: 'POST',
    path: '/events/put',
    headers: { 'content-type': 'application/jose' },
    body: compactJws(event(6), stranger),
    intent: valid,
    status: 401,
  });
  await send({
    name: 'write an event with eventReceived',
    method: 'POST',
    path: '/events/put',
    ...json({ ...event(7), eventReceived: 1 }),
    intent: invalid,
    status: 400,
  });
  await send({
    name: 'write as text',
    method: 'POST',
    path: '/events/put',
    headers: { 'content-type': 'text/plain' },
    body: 'x',
    intent: invalid,
    status: 415,
  });
  await send({
    name: 'write over 1 MiB',
    method: 'POST',
    path: '/events/put',
    ...json({ ...event(8), data: 'x'.repeat(1_100_000) }),
    intent: valid,
    status: 413,
  });
  const asReader = { authorization: `Bearer ${readToken}` };
  await send({
    name: 'read a source feed',
    method: 'GET',
    path: `/events/get/${source}`,
    headers: asReader,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'read an object feed',
    method: 'GET',
    path: '/events/get/License/L-1',
    headers: asReader,
    intent: valid,
    status: 200,
  });
  // The standby's lease events (written by the standby traffic above).
  await send({
    name: "read the standby's feed",
    method: 'GET',
    path: '/events/get/standby',
    headers: asReader,
    intent: valid,
    status: 200,
  });
  await send({
    name: "read a consumer's feed",
    method: 'GET',
    path: '/events/get/consumer/traffic-user',
    headers: asReader,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'read a page',
    method: 'GET',
    path: `/events/get/${source}?after=0&maxEventCount=2&newest=false`,
    headers: asReader,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'long poll that times out',
    method: 'GET',
    path: `/events/get/${source}?after=99999999999999999999&maxWaitMs=50`,
    headers: asReader,
    intent: valid,
    status: 200,
  });
  await send({
    name: 'read without Authorization',
    method: 'GET',
    path: `/events/get/${source}`,
    intent: invalid,
    status: 401,
  });
  await send({
    name: 'read with a garbage token',
    method: 'GET',
    path: `/events/get/${source}`,
    headers: { authorization: 'Bearer not.a.jwt' },
    intent: valid,
    status: 401,
  });
  await send({
    name: 'read another feed',
    method: 'GET',
    path: `/events/get/${source}`,
    headers: { authorization: `Bearer ${otherFeedToken}` },
    intent: valid,
    status: 403,
  });
  await send({
    name: 'read with a bad cursor',
    method: 'GET',
    path: `/events/get/${source}?after=abc`,
    headers: asReader,
    intent: invalid,
    status: 400,
  });

  // --- admin ---
  await send({ name: 'clock', method: 'GET', path: '/admin/clock', intent: valid, status: 200 });
  await send({
    name: 'move the clock',
    method: 'PUT',
    path: '/admin/clock',
    ...json({ advanceMs: 0 }),
    intent: valid,
    status: 200,
  });
  await send({
    name: 'clock with both fields',
    method: 'PUT',
    path: '/admin/clock',
    ...json({ offsetMs: 0, advanceMs: 0 }),
    intent: invalid,
    status: 400,
  });
  await send({
    name: 'standby view',
    method: 'GET',
    path: '/admin/standby',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'propagation delay',
    method: 'PUT',
    path: '/admin/standby/propagation-delay',
    ...json({ propagationDelayMs: 0 }),
    intent: valid,
    status: 200,
  });
  const provisioned = await send({
    name: 'provision a license',
    method: 'POST',
    path: '/admin/main/licenses',
    ...json({ sub: 'traffic-user', item: 'ItemP', activationCode: 'CODE-1' }),
    intent: valid,
    status: 201,
  });
  const { licenseId } = (await provisioned.json()) as { licenseId: string };
  await send({
    name: 'list licenses',
    method: 'GET',
    path: '/admin/main/licenses?sub=traffic-user',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'block a code',
    method: 'POST',
    path: '/admin/main/activation-codes/CODE-1/block',
    intent: valid,
    status: 204,
  });
  await send({
    name: 'list blocked codes',
    method: 'GET',
    path: '/admin/main/activation-codes',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'provision on a blocked code',
    method: 'POST',
    path: '/admin/main/licenses',
    ...json({ sub: 'traffic-user', item: 'ItemQ', activationCode: 'CODE-1' }),
    intent: valid,
    status: 409,
  });
  await send({
    name: 'unblock a code',
    method: 'POST',
    path: '/admin/main/activation-codes/CODE-1/unblock',
    intent: valid,
    status: 204,
  });
  await send({
    name: 'revoke a license',
    method: 'DELETE',
    path: `/admin/main/licenses/${licenseId}`,
    intent: valid,
    status: 204,
  });
  await send({
    name: 'revoke an unknown license',
    method: 'DELETE',
    path: `/admin/main/licenses/${licenseId}`,
    intent: valid,
    status: 404,
  });
  await send({
    name: 'outbox',
    method: 'GET',
    path: '/admin/main/outbox',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'hold the outbox',
    method: 'PUT',
    path: '/admin/main/outbox',
    ...json({ paused: false }),
    intent: valid,
    status: 200,
  });
  await send({
    name: 'request log',
    method: 'GET',
    path: '/admin/requests?after=0',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'request log, releases only',
    method: 'GET',
    path: '/admin/requests?service=standby&kind=release',
    intent: valid,
    status: 200,
  });
  await send({
    name: "the standby's outbox",
    method: 'GET',
    path: '/admin/standby/outbox',
    intent: valid,
    status: 200,
  });
  await send({
    name: "hold the standby's outbox",
    method: 'PUT',
    path: '/admin/standby/outbox',
    ...json({ paused: true }),
    intent: valid,
    status: 200,
  });
  await send({
    name: 'a standby lease while its outbox is held',
    method: 'GET',
    path: '/standby/authz/.jwt?ItemH',
    headers: asIdToken,
    intent: valid,
    status: 200,
  });
  await send({
    name: "let the standby's outbox go",
    method: 'PUT',
    path: '/admin/standby/outbox',
    ...json({ paused: false }),
    intent: valid,
    status: 200,
  });
  await send({
    name: 'what the standby granted',
    method: 'GET',
    path: '/admin/standby/usage',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'what the standby granted, in a window',
    method: 'GET',
    path: '/admin/standby/usage?from=2020-01-01T00:00:00Z&to=2099-01-01T00:00:00Z',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'what the standby granted, a bad window',
    method: 'GET',
    path: '/admin/standby/usage?from=yesterday',
    intent: invalid,
    status: 400,
  });
  await send({
    name: 'metrics',
    method: 'GET',
    path: '/admin/metrics',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'console page',
    method: 'GET',
    path: '/admin/console',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'console script',
    method: 'GET',
    path: '/admin/console.js',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'console style sheet',
    method: 'GET',
    path: '/admin/console.css',
    intent: valid,
    status: 200,
  });
  await send({
    name: 'reset events',
    method: 'POST',
    path: '/admin/reset?service=events',
    intent: valid,
    status: 200,
  });

  // --- no such route ---
  await send({
    name: 'unknown path',
    method: 'GET',
    path: '/no/such/route',
    intent: invalid,
    status: 404,
  });
  return results;
}
