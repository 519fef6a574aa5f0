import type { HttpHandler } from 'msw';
import { toHex } from '../internal/base64.js';
import { argument } from '../internal/validate-option.js';
import { RESERVED_ITEM_NAMES } from '../internal/wire-names.js';
import type { LicensingService, TrustedRoot } from '../types.js';
import type { FakeContext, FakeState } from './internal/fake-context.js';
import { fakeIdpHandlers, mintIdToken } from './internal/fake-idp.js';
import { fakeMainHandlers } from './internal/fake-main.js';
import { type FakeJwk, loadFakePki } from './internal/fake-pki.js';
import { fakeStandbyHandlers } from './internal/fake-standby.js';
import { readBaseUrl } from './internal/service-url.js';

/** Options of {@link createFakeLicensing}. */
export interface FakeLicensingOptions {
  /** Base URL the app uses for the main service, e.g. `https://main.licensing.invalid`. */
  mainUrl: string | URL;
  /** Base URL the app uses for the standby service. Must differ from `mainUrl`. */
  standbyUrl: string | URL;
  /**
   * Base URL of an ID-token issuer to fake as well (`POST /token` as the mock server's issuer
   * answers it, its JWK set and OIDC discovery), for an app that fetches its ID token over HTTP.
   * Default: none (get tokens from {@link FakeLicensing.idToken}).
   */
  idpUrl?: string | URL;
  /**
   * Main's catalogue: the items it grants to every user; any other item is denied
   * (`noLicenseFound`) unless {@link FakeLicensing.grant} gave it to the user. Default: every item.
   */
  items?: readonly string[];
  /** The standby's state at the start: `'active'` (default: it serves) or `'dormant'`. */
  standby?: 'active' | 'dormant';
  /**
   * The services' clock in ms since the epoch: lease `iat`/`exp`, ID-token expiry and grace, the
   * `Date` header. Default `Date.now`.
   */
  now?: () => number;
}

/** A root certificate to embed, for `trust.rootCertificates`, with the service it is for. */
export type FakeRoot = TrustedRoot & { service: LicensingService };

/** One fake service's public keys. */
export interface FakeServiceKeys {
  /** The signing key's id (`kid` of its tokens). */
  kid: string;
  /** The JWK it publishes, with `x5c` `[signing certificate, root]`. */
  jwk: FakeJwk;
  /** The signing certificate, PEM. */
  certificatePem: string;
  /** The root certificate, PEM (the `pem` of its entry in `roots`). */
  rootPem: string;
  /** The signing key's public key as SPKI PEM (main's: `auth.servicePublicKeyPem`). */
  publicKeyPem: string;
}

/** The fakes' public keys: main's, the standby's and the ID-token issuer's. */
export interface FakeLicensingKeys {
  main: FakeServiceKeys;
  standby: FakeServiceKeys;
  /** The ID-token issuer: its key, and the `iss` and `aud` of its tokens. */
  idp: { kid: string; jwk: Omit<FakeJwk, 'x5c'>; issuer: string; audience: string };
}

/** Options of {@link FakeLicensing.idToken}. */
export interface FakeIdTokenOptions {
  /**
   * Seconds from now (the fakes' clock) until the token expires. Default 3600. Negative: a token
   * that expired that long ago (main refuses it; the standby accepts it for 24 hours).
   */
  expiresInSeconds?: number;
}

/** What {@link createFakeLicensing} returns. */
export interface FakeLicensing {
  /** msw handlers for the fake services: `setupServer(...handlers)` or `setupWorker(...handlers)`. */
  handlers: HttpHandler[];
  /**
   * The roots an app embeds, for `trust.rootCertificates`: main's (`service: 'main'`) and the
   * standby's (`service: 'standby'`, with its signing key's `keyId`).
   */
  roots: FakeRoot[];
  /**
   * An ID token both fakes accept (RS256, from the fake issuer).
   *
   * @param sub - the user. Default `'qa-user'`.
   */
  idToken(sub?: string, options?: FakeIdTokenOptions): Promise<string>;
  /** From now on main grants `item` to `sub` (a license), even when it is not in `items`. */
  grant(sub: string, item: string): void;
  /** From now on main denies `item` to `sub` (`noLicenseFound`); the standby still grants it. */
  revoke(sub: string, item: string): void;
  /** Switches the standby: `'dormant'` answers 403 `standby_dormant`, `'active'` serves. */
  setStandby(state: 'active' | 'dormant'): void;
  /** The public keys behind the fakes (JWKs with `x5c`, PEMs). */
  keys: FakeLicensingKeys;
}

const OPTION_KEYS = ['mainUrl', 'standbyUrl', 'idpUrl', 'items', 'standby', 'now'];
const DEFAULT_ISSUER = 'https://fake-idp.licensing.invalid';
const AUDIENCE = 'fake-licensing-client';

function readName(name: string, value: unknown): string {
  const text = argument.string(name, value);
  if (text === undefined)
    return argument.fail(name, `Expected \`${name}\` to be a non-empty string`);
  return text;
}

function readItem(name: string, value: unknown): string {
  const item = readName(name, value);
  if (RESERVED_ITEM_NAMES.has(item)) {
    argument.fail(
      name,
      `\`${name}\` ${JSON.stringify(item)} is a reserved parameter or claim name, not an item`,
    );
  }
  return item;
}

function readCatalogue(value: unknown): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    return argument.fail('items', 'Expected `items` to be an array of item names');
  return new Set(value.map((item, i) => readItem(`items[${i}]`, item)));
}

function readUrls(o: Record<string, unknown>): FakeContext['urls'] {
  const urls = {
    main: readBaseUrl('mainUrl', o.mainUrl),
    standby: readBaseUrl('standbyUrl', o.standbyUrl),
    idp: o.idpUrl === undefined ? undefined : readBaseUrl('idpUrl', o.idpUrl),
  };
  if (urls.standby === urls.main) {
    argument.fail(
      'standbyUrl',
      `Expected \`standbyUrl\` to differ from \`mainUrl\` (both are ${urls.main})`,
    );
  }
  if (urls.idp === urls.main || urls.idp === urls.standby) {
    argument.fail('idpUrl', `Expected \`idpUrl\` to differ from \`mainUrl\` and \`standbyUrl\``);
  }
  return urls;
}

async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/**
 * Fake main and standby licensing services as msw handlers, following the wire protocol
 * (https://github.com/standby-licensing/standby-licensing/blob/main/docs/protocol.md): real
 * RS256 leases under a throwaway root, JWK sets with `x5c`, main's catalogue and per-user denials,
 * the standby's status checks, dormant 403 and 24-hour ID-token grace, release, renewal and main's
 * product checkout. No server, port, file or network: the keys are made with WebCrypto on the
 * first call and shared by every fake of the process (or page), so the same code runs under
 * `setupServer` (Node) and `setupWorker` (browsers). Put the kit's drills in front of it
 * (`server.use(...scenarioHandlers(name, urls))`); `server.resetHandlers()` brings the healthy
 * fakes back.
 *
 * @param options - the base URLs the app uses (hosts need not exist), main's catalogue, the
 *   standby's state and the services' clock.
 * @throws LicensingError `INVALID_ARGUMENT` naming a bad option.
 * @example
 * const fake = await createFakeLicensing({
 *   mainUrl: 'https://main.licensing.invalid',
 *   standbyUrl: 'https://standby.licensing.invalid',
 * });
 * const server = setupServer(...fake.handlers);
 * server.listen({ onUnhandledRequest: 'error' });
 * const client = createLicensingClient({
 *   mainUrl: 'https://main.licensing.invalid',
 *   standbyUrl: 'https://standby.licensing.invalid',
 *   auth: { idToken: () => fake.idToken('qa-user') },
 *   trust: { rootCertificates: fake.roots },
 * });
 * server.use(...scenarioHandlers('main-down', urls)); // the standby serves
 */
export async function createFakeLicensing(options: FakeLicensingOptions): Promise<FakeLicensing> {
  const o = argument.object('options', options);
  argument.knownKeys('options', o, OPTION_KEYS);
  const urls = readUrls(o);
  const catalogue = readCatalogue(o.items);
  const state: FakeState = {
    standby: argument.oneOf('standby', o.standby, ['active', 'dormant'], 'active'),
    catalogue,
    licenses: new Map(),
    revoked: new Map(),
  };
  const now = argument.fn('now', o.now, Date.now);
  const pki = await loadFakePki();
  const context: FakeContext = {
    pki,
    urls,
    issuer: { iss: urls.idp ?? DEFAULT_ISSUER, audience: AUDIENCE },
    serviceKeyHash: await sha256Hex(pki.main.publicKeyPem),
    now: () => now(),
    state,
  };
  // Longest base first, so a service whose URL lies under another's keeps its own requests.
  const services: Array<[string, () => HttpHandler[]]> = [
    [urls.main, () => fakeMainHandlers(context)],
    [urls.standby, () => fakeStandbyHandlers(context)],
  ];
  const idp = urls.idp;
  if (idp !== undefined) services.push([idp, () => fakeIdpHandlers(context, idp)]);
  services.sort(([a], [b]) => b.length - a.length);
  const serviceKeys = (service: 'main' | 'standby'): FakeServiceKeys => {
    const { kid, jwk, certificatePem, rootPem, publicKeyPem } = pki[service];
    return { kid, jwk: structuredClone(jwk), certificatePem, rootPem, publicKeyPem };
  };

  return {
    handlers: services.flatMap(([, make]) => make()),
    roots: [
      { pem: pki.main.rootPem, service: 'main' },
      { pem: pki.standby.rootPem, keyId: pki.standby.kid, service: 'standby' },
    ],
    async idToken(sub = 'qa-user', tokenOptions = {}) {
      const subject = readName('sub', sub);
      const t = argument.object('options', tokenOptions);
      argument.knownKeys('options', t, ['expiresInSeconds']);
      const expiresInSeconds = t.expiresInSeconds ?? 3600;
      if (typeof expiresInSeconds !== 'number' || !Number.isInteger(expiresInSeconds)) {
        argument.fail('expiresInSeconds', 'Expected `expiresInSeconds` to be an integer (seconds)');
      }
      return mintIdToken(context, { sub: subject, expiresInSeconds: expiresInSeconds as number });
    },
    grant(sub, item) {
      const [user, name] = [readName('sub', sub), readItem('item', item)];
      state.revoked.get(user)?.delete(name);
      const licenses = state.licenses.get(user) ?? new Map<string, string>();
      if (!licenses.has(name)) licenses.set(name, crypto.randomUUID());
      state.licenses.set(user, licenses);
    },
    revoke(sub, item) {
      const [user, name] = [readName('sub', sub), readItem('item', item)];
      state.licenses.get(user)?.delete(name);
      const revoked = state.revoked.get(user) ?? new Set<string>();
      revoked.add(name);
      state.revoked.set(user, revoked);
    },
    setStandby(next) {
      if (next === undefined)
        argument.fail('state', "Expected `state` to be 'active' or 'dormant'");
      state.standby = argument.oneOf('state', next, ['active', 'dormant'], state.standby);
    },
    keys: {
      main: serviceKeys('main'),
      standby: serviceKeys('standby'),
      idp: {
        kid: pki.idp.kid,
        jwk: { ...pki.idp.jwk },
        issuer: context.issuer.iss,
        audience: AUDIENCE,
      },
    },
  };
}
