// How a service reads an `/authz/.jwt` request (docs/protocol.md "Leases"): the mock server's
// routes and the SDK's fake services apply these very rules.
import { type AuthzEcho, readHardware, splitAttributes } from './parse-echo-parameters.js';
import { LEASE_CLAIM_NAMES, RESERVED_PARAMETERS } from './wire-names.js';

/** One licensed item requested from `/authz/.jwt`, with its per-item attributes. */
export interface AuthzItem {
  name: string;
  /** `ItemA=;licenseId=L1`, or the request's `licenseId`. */
  licenseId?: string;
  /** `ItemA=;leaseId=J1`, or the request's `leaseId` (renewal). */
  leaseId?: string;
}

/** A parsed `/authz/.jwt` request: a consume/renew of `items`, or a release of `release`. */
export interface AuthzRequest {
  items: AuthzItem[];
  /** Lease ids to release; undefined unless the request is a release. */
  release: string[] | undefined;
  echo: AuthzEcho;
}

/**
 * A request the services answer with 400 `invalid_request`; the message is the
 * `error_description`.
 */
export class InvalidAuthzRequest extends Error {
  override readonly name = 'InvalidAuthzRequest';
}

/** Most items or released lease ids in one request, unless told otherwise (the mock's `--max-items`). */
export const MAX_AUTHZ_ITEMS = 100;

/** Options of {@link parseAuthzRequest}. */
export interface ParseAuthzRequestOptions {
  /** Most items (or released lease ids) per request; more is refused. Default {@link MAX_AUTHZ_ITEMS}. */
  maxItems?: number;
}

const RESERVED: ReadonlySet<string> = new Set(RESERVED_PARAMETERS);
const CLAIMS: ReadonlySet<string> = new Set(LEASE_CLAIM_NAMES);
const CONSUMPTION_MODES: ReadonlySet<string> = new Set(['cache', 'checkout']);

function decode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw new InvalidAuthzRequest('The request has malformed percent-encoding');
  }
}

function isTruthyFlag(value: string): boolean {
  return value === '' || value === 'true' || value === '1';
}

/**
 * Parses the parameters of an `/authz/.jwt` request: the raw query string and, for a POST, the
 * raw `application/x-www-form-urlencoded` body, in that order. Items are the non-reserved names
 * (`ItemA`, `ItemA=`, `ItemA=;licenseId=L1;leaseId=J1`); `release` turns the remaining names into
 * lease ids to release.
 *
 * @param query - The query string without its `?`.
 * @param body - The form body of a POST, if any.
 * @throws InvalidAuthzRequest for bad encoding, a request naming neither an item nor a release,
 *   more than `maxItems` items or lease ids, a `leaseId` for several items, or an item or lease id
 *   named like a token claim (`LEASE_CLAIM_NAMES`).
 * @example
 * parseAuthzRequest('ItemA&hw=H1;name=Desk&version=1.2');
 * // { items: [{ name: 'ItemA' }], release: undefined, echo: { hw: 'H1', hwName: 'Desk', version: '1.2' } }
 */
export function parseAuthzRequest(
  query: string,
  body?: string,
  options: ParseAuthzRequestOptions = {},
): AuthzRequest {
  const maxItems = options.maxItems ?? MAX_AUTHZ_ITEMS;
  const tooMany = () =>
    new InvalidAuthzRequest(`More than ${maxItems} items or lease ids in one request`);
  const text = body ? (query ? `${query}&${body}` : body) : query;
  const names: [string, string][] = [];
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
      // Checked as they come: a huge request stops here, not after splitting all of it.
      if (names.length >= maxItems) throw tooMany();
      names.push([name, value]);
      continue;
    }
    switch (name) {
      case 'hw':
        readHardware(value, echo);
        break;
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
        release = isTruthyFlag(value);
        break;
      case 'leaseId':
        if (value !== '') leaseId = value;
        break;
      case 'licenseId':
        if (value !== '') licenseId = value;
        break;
      // doConsume, consumeDuration, consumeCount and the owner selectors have no effect here:
      // seats and counts are infinite on the standby.
    }
  }

  if (release) {
    const ids = names.map(([name]) => name);
    if (leaseId !== undefined) {
      if (CLAIMS.has(leaseId)) {
        throw new InvalidAuthzRequest(`${leaseId} is a token claim and cannot name a lease`);
      }
      if (ids.length >= maxItems) throw tooMany();
      ids.push(leaseId);
    }
    if (ids.length === 0) throw new InvalidAuthzRequest('A release names no lease id');
    return { items: [], release: ids, echo };
  }
  if (names.length === 0) throw new InvalidAuthzRequest('The request names no licensed item');
  if (leaseId !== undefined && names.length > 1) {
    throw new InvalidAuthzRequest('leaseId applies to one item; use <item>=;leaseId=<id> per item');
  }
  const items = names.map(([name, value]): AuthzItem => {
    const [, attributes] = splitAttributes(value);
    const item: AuthzItem = { name };
    const lic = attributes.get('licenseId') || licenseId;
    if (lic) item.licenseId = lic;
    const lease = attributes.get('leaseId') || leaseId;
    if (lease) item.leaseId = lease;
    return item;
  });
  return { items, release: undefined, echo };
}
