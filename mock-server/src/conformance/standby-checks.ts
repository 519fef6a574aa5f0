import 'reflect-metadata';
import { createPublicKey, verify as verifySignature, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { ensure, ensureApiError, ensureEqual, ensureStatus } from './expect.js';
import { decodeJws } from './jwt.js';
import { type Check, type CheckContext, CheckFailure, CheckSkipped } from './runner.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const LEASE_SECONDS = 28_800;

function url(ctx: CheckContext, path: string): string {
  return `${ctx.standbyUrl}${path}`;
}

async function idTokenAuth(ctx: CheckContext): Promise<Record<string, string>> {
  return { authorization: `IdToken ${await ctx.validIdToken()}` };
}

async function statusCheck(ctx: CheckContext, path: '/enabled' | '/disabled'): Promise<boolean> {
  const res = await ctx.fetch(url(ctx, path), { headers: await idTokenAuth(ctx) });
  await ensureStatus(res, 200, `GET ${path}`);
  const body: unknown = await res.json();
  ensure(
    typeof body === 'boolean',
    `GET ${path}: body is not a JSON boolean: ${JSON.stringify(body)}`,
  );
  return body;
}

async function waitForState(ctx: CheckContext, enabled: boolean): Promise<void> {
  const deadline = Date.now() + (ctx.propagationTimeoutMs ?? 10_000);
  while ((await statusCheck(ctx, '/enabled')) !== enabled) {
    if (Date.now() > deadline)
      throw new CheckFailure(`GET /enabled did not report ${enabled} in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function manage(ctx: CheckContext, method: string, path: string): Promise<Response> {
  return ctx.fetch(url(ctx, path), { method, headers: { 'service-apikey': ctx.apiKey ?? '' } });
}

/** Makes sure the standby is active, enabling it when management is allowed. */
export async function requireActive(ctx: CheckContext): Promise<void> {
  if (await statusCheck(ctx, '/enabled')) return;
  if (!ctx.allowManagement)
    throw new CheckSkipped('the standby is dormant; rerun with --allow-management');
  await ensureStatus(await manage(ctx, 'POST', '/enabled'), 200, 'POST /enabled');
  await waitForState(ctx, true);
}

async function authz(ctx: CheckContext, query: string, init: RequestInit = {}): Promise<Response> {
  const headers = { ...(await idTokenAuth(ctx)), ...(init.headers as Record<string, string>) };
  return ctx.fetch(url(ctx, `/authz/.jwt${query}`), { ...init, headers });
}

/** The tokens of a 200 `application/jwt` answer (`count` of them), decoded. */
export async function tokensOf(
  res: Response,
  what: string,
  count: number,
): Promise<ReturnType<typeof decodeJws>[]> {
  await ensureStatus(res, 200, what);
  const type = res.headers.get('content-type') ?? '';
  ensure(
    type.startsWith('application/jwt'),
    `${what}: content type is ${type}, expected application/jwt`,
  );
  const parts = (await res.text()).split('&');
  ensureEqual(parts.length, count, `${what}: number of tokens`);
  return parts.map((part) => decodeJws(part));
}

interface Jwk {
  kid: string;
  kty: string;
  use?: string;
  alg?: string;
  n: string;
  e: string;
  x5c?: string[];
}

async function jwks(ctx: CheckContext): Promise<Jwk[]> {
  const res = await ctx.fetch(url(ctx, '/.well-known/jwks.json'), {
    headers: await idTokenAuth(ctx),
  });
  await ensureStatus(res, 200, 'GET /.well-known/jwks.json');
  const body = (await res.json()) as { keys?: Jwk[] };
  ensure(Array.isArray(body.keys) && body.keys.length > 0, 'JWKS has no keys');
  return body.keys;
}

function verifyWithJwk(token: ReturnType<typeof decodeJws>, jwk: Jwk): boolean {
  const key = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
  return verifySignature('sha256', Buffer.from(token.signingInput), key, token.signature);
}

async function ensureChain(jwk: Jwk, what: string): Promise<void> {
  ensure(Array.isArray(jwk.x5c) && jwk.x5c.length === 2, `${what}: x5c must hold [signing, root]`);
  const [leaf, root] = jwk.x5c.map((der) => new x509.X509Certificate(Buffer.from(der, 'base64')));
  ensure(leaf && root, `${what}: x5c entries are not certificates`);
  ensure(await root.verify({ signatureOnly: true }), `${what}: root is not self-signed`);
  ensure(
    await leaf.verify({ publicKey: root, signatureOnly: true }),
    `${what}: signing cert not issued by root`,
  );
  const rootBasic = root.getExtension(x509.BasicConstraintsExtension);
  ensure(rootBasic?.ca === true, `${what}: root certificate is not a CA`);
  const leafBasic = leaf.getExtension(x509.BasicConstraintsExtension);
  ensure(!leafBasic?.ca, `${what}: signing certificate must not be a CA`);
  const years = (leaf.notAfter.getTime() - leaf.notBefore.getTime()) / (365.25 * 86_400_000);
  ensure(
    Math.abs(years - 5) < 0.02,
    `${what}: signing certificate validity is ${years.toFixed(2)} years, not 5`,
  );
  const leafKey = await leaf.publicKey.export();
  const leafJwk = (await webcrypto.subtle.exportKey('jwk', leafKey)) as { n?: string };
  ensureEqual(leafJwk.n, jwk.n, `${what}: modulus of x5c[0] vs JWK n`);
}

/** Black-box checks of a standby licensing service. */
export const standbyChecks: Check[] = [
  {
    id: 'standby.status.opposite-booleans',
    section: 'Standby: status checks',
    service: 'standby',
    rule: 'GET /enabled and GET /disabled answer 200 with opposite JSON booleans',
    async run(ctx) {
      const enabled = await statusCheck(ctx, '/enabled');
      const disabled = await statusCheck(ctx, '/disabled');
      ensure(enabled !== disabled, `/enabled says ${enabled} and /disabled says ${disabled}`);
    },
  },
  {
    id: 'standby.auth.missing-authorization',
    section: 'Standby: authentication',
    service: 'standby',
    rule: 'a request without Authorization gets 401 ApiError unauthorized and WWW-Authenticate naming both schemes',
    async run(ctx) {
      const res = await ctx.fetch(url(ctx, '/enabled'));
      const challenge = res.headers.get('www-authenticate') ?? '';
      await ensureApiError(res, 401, 'unauthorized', 'GET /enabled without Authorization');
      ensure(
        /IdToken/.test(challenge) && /ServiceKeyHash/.test(challenge),
        `WWW-Authenticate is "${challenge}"`,
      );
    },
  },
  {
    id: 'standby.auth.garbage-credentials',
    section: 'Standby: authentication',
    service: 'standby',
    rule: 'a garbage ID token and an unknown scheme get 401 ApiError invalid_token',
    async run(ctx) {
      for (const authorization of [
        'IdToken not.a.jwt',
        'IdToken',
        'Basic dXNlcjpwYXNz',
        'IdToken a.b',
      ]) {
        const res = await ctx.fetch(url(ctx, '/enabled'), { headers: { authorization } });
        await ensureApiError(res, 401, undefined, `Authorization: ${authorization}`);
      }
    },
  },
  {
    id: 'standby.auth.unsigned-algorithms',
    section: 'Standby: authentication',
    service: 'standby',
    rule: 'ID tokens with alg none or HS256 are refused with 401',
    needs: ['idTokenSigner'],
    async run(ctx) {
      const valid = decodeJws(await ctx.validIdToken());
      const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const unsigned: Array<[string, string]> = [
        ['none', `${enc({ alg: 'none', typ: 'JWT' })}.${enc(valid.payload)}.`],
        ['HS256', `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(valid.payload)}.${enc('sig')}`],
      ];
      for (const [alg, token] of unsigned) {
        const res = await ctx.fetch(url(ctx, '/enabled'), {
          headers: { authorization: `IdToken ${token}` },
        });
        await ensureApiError(res, 401, 'invalid_token', `ID token with alg ${alg}`);
      }
    },
  },
  {
    id: 'standby.auth.bad-id-token-claims',
    section: 'Standby: authentication',
    service: 'standby',
    rule: 'an ID token with a bad signature, wrong iss, aud without the client id, or iat in the future is refused',
    needs: ['idTokenSigner'],
    async run(ctx) {
      const good = await ctx.validIdToken();
      const [h, p, s] = good.split('.') as [string, string, string];
      const flipped = `${h}.${p}.${s.startsWith('A') ? `B${s.slice(1)}` : `A${s.slice(1)}`}`;
      const now = Math.floor(Date.now() / 1000);
      const cases: Array<[string, string]> = [
        ['bad signature', flipped],
        ['wrong iss', await ctx.signIdToken!({ iss: 'https://wrong-issuer.invalid' })],
        ['aud without client id', await ctx.signIdToken!({ aud: ['someone-else'] })],
        ['iat 10 minutes ahead', await ctx.signIdToken!({ iat: now + 600, exp: now + 4200 })],
        ['no sub', await ctx.signIdToken!({ sub: undefined })],
      ];
      for (const [what, token] of cases) {
        const res = await ctx.fetch(url(ctx, '/enabled'), {
          headers: { authorization: `IdToken ${token}` },
        });
        await ensureApiError(res, 401, 'invalid_token', what);
      }
    },
  },
  {
    id: 'standby.auth.id-token-grace',
    section: 'Standby: authentication',
    service: 'standby',
    rule: 'an ID token 23 h past exp is accepted (24 h grace) and one 25 h past exp is refused',
    needs: ['idTokenSigner'],
    async run(ctx) {
      const now = Math.floor(Date.now() / 1000);
      const at = (hoursAgo: number) => ({
        iat: now - hoursAgo * 3600 - 3600,
        exp: now - hoursAgo * 3600,
      });
      const inGrace = await ctx.signIdToken!(at(23));
      const res = await ctx.fetch(url(ctx, '/enabled'), {
        headers: { authorization: `IdToken ${inGrace}` },
      });
      await ensureStatus(res, 200, 'ID token 23 h past exp');
      const past = await ctx.signIdToken!(at(25));
      const refused = await ctx.fetch(url(ctx, '/enabled'), {
        headers: { authorization: `IdToken ${past}` },
      });
      await ensureApiError(refused, 401, 'invalid_token', 'ID token 25 h past exp');
    },
  },
  {
    id: 'standby.auth.service-key-hash',
    section: 'Standby: authentication',
    service: 'standby',
    rule: 'ServiceKeyHash is accepted in lower and upper case hex, a wrong hash is refused',
    needs: ['serviceKeyHash'],
    async run(ctx) {
      const hash = ctx.serviceKeyHash!;
      for (const value of [hash.toLowerCase(), hash.toUpperCase()]) {
        const res = await ctx.fetch(url(ctx, '/enabled'), {
          headers: { authorization: `ServiceKeyHash ${value}` },
        });
        await ensureStatus(res, 200, 'ServiceKeyHash');
      }
      const wrong = `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`;
      const res = await ctx.fetch(url(ctx, '/enabled'), {
        headers: { authorization: `ServiceKeyHash ${wrong}` },
      });
      await ensureApiError(res, 401, 'invalid_token', 'wrong ServiceKeyHash');
    },
  },
  {
    id: 'standby.management.wrong-api-key',
    section: 'Standby: management',
    service: 'standby',
    rule: 'a management call with a wrong Service-ApiKey gets 401 ApiError invalid_api_key and changes nothing',
    async run(ctx) {
      const before = await statusCheck(ctx, '/enabled');
      for (const [method, path] of [
        ['POST', '/enabled'],
        ['PUT', '/disabled'],
        ['POST', '/signing-keys'],
      ]) {
        const res = await ctx.fetch(url(ctx, path!), {
          method,
          headers: { 'service-apikey': 'wrong-key' },
        });
        await ensureApiError(res, 401, 'invalid_api_key', `${method} ${path} with a wrong key`);
      }
      ensureEqual(
        await statusCheck(ctx, '/enabled'),
        before,
        'state after refused management calls',
      );
    },
  },
  {
    id: 'standby.management.enable-disable',
    section: 'Standby: management',
    service: 'standby',
    rule: 'PATCH, POST and PUT /enabled enable, answering 200 true; GET /disabled with the key disables',
    needs: ['management'],
    async run(ctx) {
      const wasEnabled = await statusCheck(ctx, '/enabled');
      for (const method of ['PATCH', 'POST', 'PUT']) {
        const res = await manage(ctx, method, '/enabled');
        await ensureStatus(res, 200, `${method} /enabled`);
        ensureEqual(await res.json(), true, `${method} /enabled body`);
      }
      await waitForState(ctx, true);
      const res = await manage(ctx, 'GET', '/disabled');
      await ensureStatus(res, 200, 'GET /disabled with Service-ApiKey');
      ensureEqual(await res.json(), true, 'GET /disabled (management) body');
      await waitForState(ctx, false);
      if (wasEnabled) {
        await manage(ctx, 'POST', '/enabled');
        await waitForState(ctx, true);
      }
    },
  },
  {
    id: 'standby.dormant.refuses-leases',
    section: 'Standby: dormant state',
    service: 'standby',
    rule: 'while dormant, /authz/.jwt and JWKS answer 403 standby_dormant and status checks still answer',
    needs: ['management'],
    async run(ctx) {
      const wasEnabled = await statusCheck(ctx, '/enabled');
      await ensureStatus(await manage(ctx, 'PUT', '/disabled'), 200, 'PUT /disabled');
      await waitForState(ctx, false);
      try {
        await ensureApiError(
          await authz(ctx, '?ItemA'),
          403,
          'standby_dormant',
          'dormant /authz/.jwt',
        );
        const keys = await ctx.fetch(url(ctx, '/.well-known/jwks.json'), {
          headers: await idTokenAuth(ctx),
        });
        await ensureApiError(keys, 403, 'standby_dormant', 'dormant JWKS');
        ensureEqual(await statusCheck(ctx, '/disabled'), true, 'GET /disabled while dormant');
        const anonymous = await ctx.fetch(url(ctx, '/authz/.jwt?ItemA'));
        await ensureApiError(
          anonymous,
          401,
          undefined,
          'dormant /authz/.jwt without auth (auth comes first)',
        );
      } finally {
        if (wasEnabled) {
          await manage(ctx, 'POST', '/enabled');
          await waitForState(ctx, true);
        }
      }
    },
  },
  {
    id: 'standby.authz.consume',
    section: 'Standby: /authz/.jwt',
    service: 'standby',
    rule: 'consume answers application/jwt, one RS256 token per item in request order joined by &',
    async run(ctx) {
      await requireActive(ctx);
      const tokens = await tokensOf(
        await authz(ctx, '?ItemB&ItemA='),
        'GET /authz/.jwt?ItemB&ItemA=',
        2,
      );
      const [b, a] = tokens as [ReturnType<typeof decodeJws>, ReturnType<typeof decodeJws>];
      ensureEqual(b.payload.ItemB, true, 'first token item claim');
      ensureEqual(a.payload.ItemA, true, 'second token item claim');
      for (const token of tokens) {
        ensureEqual(token.header.alg, 'RS256', 'header alg');
        ensureEqual(token.header.typ, 'JWT', 'header typ');
        ensure(typeof token.header.kid === 'string', 'header has no kid');
      }
    },
  },
  {
    id: 'standby.authz.claims',
    section: 'Standby: /authz/.jwt',
    service: 'standby',
    rule: 'tokens carry lic (unique per item), jti, iss, sub, iat, exp = iat + 8 h, rfr = iat + 75 % and the echoes',
    async run(ctx) {
      await requireActive(ctx);
      const query =
        '?ItemA&ItemB&hw=HW-1;name=Desk%201&process=proc-7&version=2.4.1&consumptionMode=cache';
      const tokens = await tokensOf(await authz(ctx, query), 'consume with echoes', 2);
      const lics = new Set<unknown>();
      for (const { payload } of tokens) {
        ensure(typeof payload.lic === 'string' && payload.lic.length > 0, 'lic missing');
        lics.add(payload.lic);
        ensure(typeof payload.jti === 'string' && payload.jti.length > 0, 'jti missing');
        ensure(typeof payload.iss === 'string' && payload.iss.length > 0, 'iss missing');
        ensure(typeof payload.sub === 'string' && payload.sub.length > 0, 'sub missing');
        ensure(Number.isInteger(payload.iat), 'iat is not an integer');
        ensureEqual(payload.exp, (payload.iat as number) + LEASE_SECONDS, 'exp');
        ensureEqual(payload.rfr, (payload.iat as number) + LEASE_SECONDS * 0.75, 'rfr');
        ensureEqual(payload.hw, 'HW-1', 'hw echo');
        ensureEqual(payload.hwName, 'Desk 1', 'hwName echo');
        ensureEqual(payload.process, 'proc-7', 'process echo');
        ensureEqual(payload.version, '2.4.1', 'version echo');
        ensureEqual(payload.consumptionMode, 'cache', 'consumptionMode echo');
      }
      ensureEqual(lics.size, 2, 'distinct lic values');
    },
  },
  {
    id: 'standby.authz.license-and-lease-ids',
    section: 'Standby: /authz/.jwt',
    service: 'standby',
    rule: 'a requested licenseId is echoed in lic; a renewal keeps the lease id in jti',
    async run(ctx) {
      await requireActive(ctx);
      const [withLic] = await tokensOf(
        await authz(ctx, '?ItemA=;licenseId=L-42'),
        'ItemA=;licenseId=L-42',
        1,
      );
      ensureEqual(withLic?.payload.lic, 'L-42', 'lic for a requested licenseId');
      const [renewed] = await tokensOf(
        await authz(ctx, '?ItemA=;leaseId=J-7'),
        'ItemA=;leaseId=J-7',
        1,
      );
      ensureEqual(renewed?.payload.jti, 'J-7', 'jti of a renewal by item attribute');
      const [byParam] = await tokensOf(
        await authz(ctx, '?ItemA&leaseId=J-8'),
        'ItemA&leaseId=J-8',
        1,
      );
      ensureEqual(byParam?.payload.jti, 'J-8', 'jti of a renewal by leaseId parameter');
    },
  },
  {
    id: 'standby.authz.form-post',
    section: 'Standby: /authz/.jwt',
    service: 'standby',
    rule: 'POST with an application/x-www-form-urlencoded body behaves like GET',
    async run(ctx) {
      await requireActive(ctx);
      const res = await authz(ctx, '', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'ItemA&version=9.9',
      });
      const [token] = await tokensOf(res, 'POST /authz/.jwt', 1);
      ensureEqual(token?.payload.ItemA, true, 'item claim');
      ensureEqual(token?.payload.version, '9.9', 'version echo');
    },
  },
  {
    id: 'standby.authz.release',
    section: 'Standby: /authz/.jwt',
    service: 'standby',
    rule: 'release answers one token with <leaseId>: true per id, and never fails for unknown ids',
    async run(ctx) {
      await requireActive(ctx);
      const [token] = await tokensOf(await authz(ctx, '?release&J-1&J-unknown'), 'release', 1);
      ensureEqual(token?.payload['J-1'], true, 'released J-1');
      ensureEqual(token?.payload['J-unknown'], true, 'released J-unknown');
      for (const claim of ['iss', 'sub', 'iat', 'exp'])
        ensure(claim in token!.payload, `release token lacks ${claim}`);
    },
  },
  {
    id: 'standby.authz.bad-requests',
    section: 'Standby: /authz/.jwt',
    service: 'standby',
    rule: 'a request naming no item answers 400 ApiError; an unknown Service-SigningKeyId answers 400 unknown_signing_key',
    async run(ctx) {
      await requireActive(ctx);
      await ensureApiError(await authz(ctx, ''), 400, undefined, 'no items');
      await ensureApiError(
        await authz(ctx, '?hw=abc&version=1'),
        400,
        undefined,
        'only reserved parameters',
      );
      const res = await authz(ctx, '?ItemA', {
        headers: { 'service-signingkeyid': 'no-such-key' },
      });
      await ensureApiError(res, 400, 'unknown_signing_key', 'unknown Service-SigningKeyId');
    },
  },
  {
    id: 'standby.jwks.certificate-chains',
    section: 'Standby: signing keys and JWKS',
    service: 'standby',
    rule: 'every JWK is RSA/sig/RS256 with n, e and x5c = [signing, root]: chain valid, 5 years, x5c[0] modulus = n',
    async run(ctx) {
      await requireActive(ctx);
      for (const jwk of await jwks(ctx)) {
        ensureEqual(
          [jwk.kty, jwk.use, jwk.alg],
          ['RSA', 'sig', 'RS256'],
          `JWK ${jwk.kid} kty/use/alg`,
        );
        await ensureChain(jwk, `JWK ${jwk.kid}`);
      }
    },
  },
  {
    id: 'standby.jwks.tokens-verify',
    section: 'Standby: signing keys and JWKS',
    service: 'standby',
    rule: 'lease tokens verify with the JWK named by their kid',
    async run(ctx) {
      await requireActive(ctx);
      const [token] = await tokensOf(await authz(ctx, '?ItemA'), 'consume', 1);
      const jwk = (await jwks(ctx)).find((key) => key.kid === token?.header.kid);
      ensure(jwk, `no JWK with kid ${String(token?.header.kid)}`);
      ensure(verifyWithJwk(token!, jwk), 'signature does not verify with the JWK of its kid');
    },
  },
  {
    id: 'standby.jwks.key-rotation',
    section: 'Standby: signing keys and JWKS',
    service: 'standby',
    rule: 'POST /signing-keys answers 201 with keyId and certificates; the new key becomes default, the old one still signs when pinned',
    needs: ['management'],
    async run(ctx) {
      await requireActive(ctx);
      const [before] = await tokensOf(await authz(ctx, '?ItemA'), 'consume before rotation', 1);
      const oldKid = before!.header.kid as string;
      const res = await manage(ctx, 'POST', '/signing-keys');
      await ensureStatus(res, 201, 'POST /signing-keys');
      const body = (await res.json()) as Record<string, unknown>;
      for (const field of [
        'keyId',
        'rootCertificate',
        'signingCertificate',
        'notBefore',
        'notAfter',
      ]) {
        ensure(typeof body[field] === 'string', `POST /signing-keys: ${field} missing`);
      }
      ensure(
        String(body.rootCertificate).includes('BEGIN CERTIFICATE'),
        'rootCertificate is not PEM',
      );
      const keys = await jwks(ctx);
      ensureEqual(keys[0]?.kid, body.keyId, 'JWKS newest first');
      const root = new x509.X509Certificate(String(body.rootCertificate));
      const newJwk = keys[0]!;
      const leaf = new x509.X509Certificate(Buffer.from(newJwk.x5c![0]!, 'base64'));
      ensure(
        await leaf.verify({ publicKey: root, signatureOnly: true }),
        'x5c[0] does not verify up to the returned root',
      );
      const [after] = await tokensOf(await authz(ctx, '?ItemA'), 'consume after rotation', 1);
      ensureEqual(after?.header.kid, body.keyId, 'default key after rotation');
      const pinned = await authz(ctx, '?ItemA', { headers: { 'service-signingkeyid': oldKid } });
      const [old] = await tokensOf(pinned, 'consume pinned to the old key', 1);
      ensureEqual(old?.header.kid, oldKid, 'kid when pinned with Service-SigningKeyId');
      const oldJwk = keys.find((key) => key.kid === oldKid);
      ensure(
        oldJwk && verifyWithJwk(old!, oldJwk),
        'pinned token does not verify with the old JWK',
      );
    },
  },
];
