// The client's key source of each service (DECISIONS.md "Trust while the app runs (fourth wave)":
// one key source per service, bounded work, the services' time is the signed one): each service's
// JWK set loaded through the real transport from a loopback server, the roots that vouch for that
// service only, the set's Date given to the clock as an unsigned time, the cooldown on the local
// clock, and a lookup that overruns the attempt's budget failing as an outage of that service.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestPki, type TestPki } from '../../test/helpers/test-pki.js';
import { createEventHub, type KeysFetchedEvent } from '../client-hooks.js';
import { LicensingError, TokenInvalidError } from '../errors.js';
import { verifySigningKey } from '../lease/signing-key-check.js';
import { createTrustedClock, MAX_CLOCK_SKEW_MS } from '../lease/trusted-clock.js';
import { parseTrustedRoots } from '../lease/trusted-roots.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import { createLicensingTransport } from '../transport/licensing-transport.js';
import type { LicensingService } from '../types.js';
import { createClientKeys } from './client-keys.js';

vi.mock('../lease/signing-key-check.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../lease/signing-key-check.js')>();
  return { ...original, verifySigningKey: vi.fn(original.verifySigningKey) };
});

const T0 = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;
const COOLDOWN = 30_000;
const ATTEMPT_MS = 3_000;

let pki: TestPki;
let server: Server;
let origin: string;
/** How the loopback server answers a JWK set request, by service. */
let answer: (service: LicensingService, response: ServerResponse) => void;
/** The paths the server was asked for. */
let asked: string[];

beforeAll(async () => {
  pki = await createTestPki({ now: () => T0 });
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    asked.push(request.url ?? '');
    const service = request.url?.startsWith('/main/') ? 'main' : 'standby';
    answer(service, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Answers `{ keys }` with a `Date` header of `date` (ms; null: no Date header at all). */
function serve(keys: unknown[], date: number | null = T0) {
  answer = (_service, response) => {
    if (date === null) response.sendDate = false;
    else response.setHeader('date', new Date(date).toUTCString());
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  };
}

beforeEach(() => {
  asked = [];
  serve([pki.signingKey.jwk]);
  vi.mocked(verifySigningKey).mockClear();
});
afterEach(() => {
  vi.useRealTimers();
});

function setup(roots: Array<{ pem: string; service?: LicensingService }> = [{ pem: pki.rootPem }]) {
  const local = { now: T0 };
  const fetched: KeysFetchedEvent[] = [];
  const clock = createTrustedClock({
    now: () => local.now,
    monotonic: () => 0,
    toleranceMs: 60_000,
  });
  const mainUrl = `${origin}/main`;
  const standbyUrl = `${origin}/standby`;
  const transport = createLicensingTransport({
    mainUrl,
    standbyUrl,
    fetch: (input, init) => fetch(input, init),
    now: () => local.now,
    attemptTimeoutMs: ATTEMPT_MS,
    signingKeyIdHeader: 'Service-SigningKeyId',
    signingKeyIds: [],
    credentials: { authorization: async () => 'IdToken test', refreshable: false },
  });
  const keys = createClientKeys({
    transport,
    clock,
    anchors: parseTrustedRoots(roots),
    mainUrl,
    standbyUrl,
    cooldownMs: COOLDOWN,
    attemptTimeoutMs: ATTEMPT_MS,
    events: createEventHub({ keysFetched: (event) => fetched.push(event) }),
  });
  return { keys, clock, local, mainUrl, standbyUrl, fetched };
}

describe('createClientKeys', () => {
  it("makes one key source per service, each loading its own service's JWK set", async () => {
    serve([pki.signingKey.jwk, { ...pki.signingKey.jwk, kid: 'other' }, { kty: 'RSA' }]);
    const { keys, fetched } = setup();
    expect(keys.main.service).toBe('main');
    expect(keys.standby.service).toBe('standby');
    const key = await keys.standby.keyFor(pki.kid);
    expect(keys.standby.find(pki.kid)).toBe(key);
    expect(keys.main.find(pki.kid)).toBeUndefined();
    expect(asked).toEqual(['/standby/.well-known/jwks.json']);
    // Each set fetched is told once, with the kid of every key in it, in its order.
    expect(fetched).toEqual([{ service: 'standby', keyIds: [pki.kid, 'other'] }]);
    await keys.main.keyFor(pki.kid);
    expect(asked).toEqual(['/standby/.well-known/jwks.json', '/main/.well-known/jwks.json']);
    expect(fetched).toEqual([
      { service: 'standby', keyIds: [pki.kid, 'other'] },
      { service: 'main', keyIds: [pki.kid, 'other'] },
    ]);
  });

  it('gives each service the roots that vouch for it, and says how to embed its own', async () => {
    const { keys, mainUrl } = setup([{ pem: pki.rootPem, service: 'standby' }]);
    expect(await keys.standby.keyFor(pki.kid)).toBeDefined();
    const refusal = await keys.main.keyFor(pki.kid).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TokenInvalidError);
    expect(refusal).toMatchObject({ reason: 'chain' });
    expect((refusal as Error).message).toContain(
      `Embed the main service's current root and ship it with the app: npx standby-licensing embed-root --jwks-url ${mainUrl}/.well-known/jwks.json --out <your roots module>`,
    );
    const other = setup([{ pem: pki.rootPem, service: 'main' }]);
    const standbyRefusal = await other.keys.standby
      .keyFor(pki.kid)
      .catch((error: unknown) => error);
    expect((standbyRefusal as Error).message).toContain(
      `npx standby-licensing embed-root --standby-url ${other.standbyUrl} --id-token`,
    );
    expect(await other.keys.main.keyFor(pki.kid)).toBeDefined();
  });

  it("gives the clock the set's Date as an unsigned time: forward only, never an anchor", async () => {
    serve([pki.signingKey.jwk], T0 + HOUR);
    const { keys, clock } = setup();
    await keys.main.keyFor(pki.kid);
    // The transport reads the Date mid-second.
    expect(clock.offsetMs).toBe(HOUR + 500);
    expect(clock.mark).toBe(T0 + HOUR + 500);
    expect(clock.anchored).toBe(false);
    // An earlier Date moves nothing back.
    serve([pki.signingKey.jwk], T0 - HOUR);
    await keys.main.refresh();
    expect(clock.offsetMs).toBe(HOUR + 500);
    expect(clock.mark).toBe(T0 + HOUR + 500);
  });

  it('takes nothing from a set without a Date, or with one beyond what the clock believes', async () => {
    serve([pki.signingKey.jwk], null);
    const { keys, clock } = setup();
    await keys.standby.keyFor(pki.kid);
    serve([pki.signingKey.jwk], T0 + MAX_CLOCK_SKEW_MS + 2 * HOUR);
    await keys.main.keyFor(pki.kid);
    expect(clock.snapshot()).toEqual({ timeMark: 0, offsetMs: 0, usedUntil: T0 });
  });

  it('holds the cooldown on the local clock, per service', async () => {
    const { keys, local } = setup();
    await expect(keys.standby.keyFor('missing')).rejects.toMatchObject({ reason: 'kid' });
    await expect(keys.standby.keyFor('random')).rejects.toMatchObject({ reason: 'kid' });
    expect(asked).toHaveLength(1);
    // Main's source has its own.
    await expect(keys.main.keyFor('random')).rejects.toMatchObject({ reason: 'kid' });
    expect(asked).toHaveLength(2);
    local.now = T0 + COOLDOWN - 1;
    await expect(keys.standby.keyFor('random')).rejects.toMatchObject({ reason: 'kid' });
    expect(asked).toHaveLength(2);
    local.now = T0 + COOLDOWN;
    await expect(keys.standby.keyFor('random')).rejects.toMatchObject({ reason: 'kid' });
    expect(asked).toHaveLength(3);
  });

  it("passes a failed load through as the transport's outage of that service", async () => {
    answer = (_service, response) => {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('down');
    };
    const { keys } = setup();
    const error = await keys.standby.keyFor(pki.kid).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FailedAttempt);
    expect((error as FailedAttempt).verdict).toMatchObject({ outage: true });
  });

  describe('the budget: reading the set and checking its key within attemptTimeoutMs', () => {
    for (const service of ['main', 'standby'] as const) {
      it(`an overrun is a timed-out attempt of ${service}, an outage naming its JWK set URL`, async () => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
        let checkStarted = () => {};
        const started = new Promise<void>((resolve) => {
          checkStarted = resolve;
        });
        vi.mocked(verifySigningKey).mockImplementationOnce(
          () =>
            new Promise((_resolve, reject) => {
              checkStarted();
              // Never settles by itself; the test ends it.
              setTimeout(() => reject(new Error('released')), 10 * ATTEMPT_MS);
            }),
        );
        const { keys, mainUrl, standbyUrl } = setup();
        const lookup = keys[service].keyFor(pki.kid).catch((e: unknown) => e);
        await started;
        await vi.advanceTimersByTimeAsync(ATTEMPT_MS);
        const error = await lookup;
        expect(error).toBeInstanceOf(FailedAttempt);
        const { verdict } = error as FailedAttempt;
        expect(verdict).toMatchObject({ outage: true, reason: 'timeout' });
        expect(verdict.error).toBeInstanceOf(LicensingError);
        expect(verdict.error.code).toBe('SERVICE_UNAVAILABLE');
        const url = `${service === 'main' ? mainUrl : standbyUrl}/.well-known/jwks.json`;
        expect(verdict.error.message).toContain(`(${url})`);
        expect(verdict.error.message).toContain(`no answer within ${ATTEMPT_MS} ms`);
        await vi.advanceTimersByTimeAsync(10 * ATTEMPT_MS);
      });
    }
  });
});
