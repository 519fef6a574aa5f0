// The fake services' reading of an `/authz/.jwt` request (docs/protocol.md "Leases"), the same
// rules as the mock server's parser. Private to the testing kit.
import { LEASE_CLAIM_NAMES, RESERVED_PARAMETERS } from '../../internal/wire-names.js';

/** One requested item with its per-item attributes. */
export interface AuthzItem {
  name: string;
  /** `ItemA=;licenseId=L1`, or the request's `licenseId`. */
  licenseId?: string;
  /** `ItemA=;leaseId=J1`, or the request's `leaseId` (a renewal). */
  leaseId?: string;
}

/** Request details echoed into every token. */
export interface AuthzEcho {
  hw?: string;
  hwName?: string;
  process?: string;
  version?: string;
  consumptionMode?: string;
}

/** A consume or renewal of `items`, or a release of `release`. */
export interface AuthzParameters {
  items: AuthzItem[];
  /** Lease ids to release; undefined unless the request is a release. */
  release: string[] | undefined;
  echo: AuthzEcho;
}

/** A request the services answer with 400 `invalid_request`; the message is the description. */
export class InvalidAuthzRequest extends Error {
  override name = 'InvalidAuthzRequest';
}

/** Most items or released lease ids in one request (the mock's default `--max-items`). */
export const MAX_AUTHZ_ITEMS = 100;

const RESERVED = new Set(RESERVED_PARAMETERS);
const CLAIMS = new Set(LEASE_CLAIM_NAMES);
const CONSUMPTION_MODES = new Set(['cache', 'checkout']);

function decode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw new InvalidAuthzRequest('The request has malformed percent-encoding');
  }
}

/** Splits `<main>;k=v;k2=v2` into its main part and attributes. */
function splitAttributes(value: string): [string, Map<string, string>] {
  const [first = '', ...rest] = value.split(';');
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq > 0) attributes.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return [first, attributes];
}

/** `hw`, `process` and `version` of a query, as the checkout action echoes them. */
export function readEcho(parameters: URLSearchParams): AuthzEcho {
  const echo: AuthzEcho = {};
  const hw = parameters.get('hw');
  if (hw !== null) {
    const [id, attributes] = splitAttributes(hw);
    if (id !== '') echo.hw = id;
    const label = attributes.get('name');
    if (label !== undefined) echo.hwName = label;
  }
  const process = parameters.get('process');
  if (process !== null) echo.process = process;
  const version = parameters.get('version');
  if (version !== null) echo.version = version;
  return echo;
}

/**
 * Parses an `/authz/.jwt` request from its raw query and (POST) form body, in that order.
 *
 * @throws InvalidAuthzRequest for a request naming no item and no release, too many items, an
 *   item named like a token claim, a `leaseId` for several items, or bad encoding.
 * @example
 * parseAuthzParameters('ItemA&hw=H1;name=Desk'); // { items: [{ name: 'ItemA' }], echo: { hw: 'H1', hwName: 'Desk' }, ... }
 */
export function parseAuthzParameters(query: string, body = ''): AuthzParameters {
  const text = [query, body].filter(Boolean).join('&');
  const names: Array<[string, string]> = [];
  const echo: AuthzEcho = {};
  let release = false;
  let leaseId: string | undefined;
  let licenseId: string | undefined;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq)).trim();
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    if (name === '') throw new InvalidAuthzRequest('A parameter has an empty name');
    if (!RESERVED.has(name)) {
      if (CLAIMS.has(name)) {
        throw new InvalidAuthzRequest(
          `${name} is a token claim and cannot name an item or a lease`,
        );
      }
      if (names.length >= MAX_AUTHZ_ITEMS) {
        throw new InvalidAuthzRequest(
          `More than ${MAX_AUTHZ_ITEMS} items or lease ids in one request`,
        );
      }
      names.push([name, value]);
      continue;
    }
    switch (name) {
      case 'hw': {
        const [id, attributes] = splitAttributes(value);
        if (id !== '') echo.hw = id;
        const label = attributes.get('name');
        if (label !== undefined) echo.hwName = label;
        break;
      }
      case 'process':
      case 'version':
        echo[name] = value;
        break;
      case 'consumptionMode':
        if (!CONSUMPTION_MODES.has(value)) {
          throw new InvalidAuthzRequest('consumptionMode must be cache or checkout');
        }
        echo.consumptionMode = value;
        break;
      case 'release':
        release = value === '' || value === 'true' || value === '1';
        break;
      case 'leaseId':
        if (value !== '') leaseId = value;
        break;
      case 'licenseId':
        if (value !== '') licenseId = value;
        break;
      // doConsume, consumeDuration, consumeCount and the owner selectors: accepted, no effect.
    }
  }
  if (release) {
    const ids = names.map(([name]) => name);
    if (leaseId !== undefined) ids.push(leaseId);
    if (ids.length === 0) throw new InvalidAuthzRequest('A release names no lease id');
    if (ids.length > MAX_AUTHZ_ITEMS) {
      throw new InvalidAuthzRequest(
        `More than ${MAX_AUTHZ_ITEMS} items or lease ids in one request`,
      );
    }
    return { items: [], release: ids, echo };
  }
  if (names.length === 0) throw new InvalidAuthzRequest('The request names no licensed item');
  if (leaseId !== undefined && names.length > 1) {
    throw new InvalidAuthzRequest('leaseId applies to one item; use <item>=;leaseId=<id> per item');
  }
  const items = names.map(([name, value]): AuthzItem => {
    const [, attributes] = splitAttributes(value);
    const lic = attributes.get('licenseId') || licenseId;
    const lease = attributes.get('leaseId') || leaseId;
    return { name, ...(lic ? { licenseId: lic } : {}), ...(lease ? { leaseId: lease } : {}) };
  });
  return { items, release: undefined, echo };
}
