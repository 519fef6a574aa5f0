// The wire's reserved names have one home, in the SDK; this file is bundled into the mock's
// build (docs/decisions/0027-lease-trust-home.md).
import {
  LEASE_CLAIM_NAMES,
  RESERVED_PARAMETERS as WIRE_RESERVED_PARAMETERS,
} from '../../../sdk/src/internal/wire-names.js';
import { ApiError } from '../errors.js';

/** One licensed item requested from `/authz/.jwt`, with its per-item attributes. */
export interface AuthzItem {
  name: string;
  /** `ItemA=;licenseId=L1`, or the request's `licenseId`. */
  licenseId?: string;
  /** `ItemA=;leaseId=J1`, or the request's `leaseId` (renewal). */
  leaseId?: string;
}

/** Request details echoed into every token (docs/protocol.md "Token claims"). */
export interface AuthzEcho {
  hw?: string;
  hwName?: string;
  process?: string;
  version?: string;
  consumptionMode?: string;
}

/** A parsed `/authz/.jwt` request: a consume/renew of `items`, or a release of `release`. */
export interface AuthzRequest {
  items: AuthzItem[];
  /** Lease ids to release; undefined unless the request is a release. */
  release: string[] | undefined;
  echo: AuthzEcho;
}

/** Parameter names that are never licensed items (the SDK's list: one source of truth). */
export const RESERVED_PARAMETERS: ReadonlySet<string> = new Set(WIRE_RESERVED_PARAMETERS);

/**
 * Names an item (or released lease id) may not have: they are claims of the lease token, and an
 * item claim `<item>: true` named like one would be overwritten by it (docs/protocol.md "Leases").
 * `__proto__` cannot be a claim name of a JavaScript object at all.
 */
export const CLAIM_NAMES: ReadonlySet<string> = new Set(LEASE_CLAIM_NAMES);

/**
 * The request details a licensing call echoes into its tokens, from a query string's `hw`
 * (`<id>` or `<id>;name=<label>`), `process` and `version` (the main service's checkout action).
 */
export function parseEchoParameters(query: Record<string, string | undefined>): AuthzEcho {
  const echo: AuthzEcho = {};
  if (query.hw !== undefined) {
    const [id, attributes] = splitAttributes(query.hw);
    if (id !== '') echo.hw = id;
    const label = attributes.get('name');
    if (label !== undefined) echo.hwName = label;
  }
  if (query.process !== undefined) echo.process = query.process;
  if (query.version !== undefined) echo.version = query.version;
  return echo;
}

/** Options of {@link parseAuthzRequest}. */
export interface ParseAuthzRequestOptions {
  /** Most items (or released lease ids) per request; more is 400. Default 100. */
  maxItems?: number;
}

const CONSUMPTION_MODES = new Set(['cache', 'checkout']);

function invalid(description: string): ApiError {
  return new ApiError(400, 'invalid_request', description);
}

function decode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw invalid('The request has malformed percent-encoding');
  }
}

/** Splits `<main>;k=v;k2=v2` into its main part and attributes. */
function splitAttributes(value: string): [string, Map<string, string>] {
  const parts = value.split(';');
  const attributes = new Map<string, string>();
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    if (eq > 0) attributes.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return [parts[0]!, attributes];
}

function isTruthyFlag(value: string): boolean {
  return value === '' || value === 'true' || value === '1';
}

/**
 * Parses the parameters of an `/authz/.jwt` request: the raw query string and, for a POST, the
 * raw `application/x-www-form-urlencoded` body, in that order. Items are the non-reserved names
 * (`ItemA`, `ItemA=`, `ItemA=;licenseId=L1;leaseId=J1`); `release` turns the remaining names into
 * lease ids to release. Throws a 400 `invalid_request` ApiError for bad input, a request naming
 * neither an item nor a release, more than `maxItems` items or lease ids, or an item or lease id
 * named like a token claim ({@link CLAIM_NAMES}).
 *
 * @example
 * parseAuthzRequest('ItemA&hw=H1;name=Desk&version=1.2');
 * // { items: [{ name: 'ItemA' }], release: undefined, echo: { hw: 'H1', hwName: 'Desk', version: '1.2' } }
 */
export function parseAuthzRequest(
  query: string,
  body?: string,
  options: ParseAuthzRequestOptions = {},
): AuthzRequest {
  const maxItems = options.maxItems ?? 100;
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
    if (name === '') throw invalid('A parameter has an empty name');
    if (!RESERVED_PARAMETERS.has(name)) {
      if (CLAIM_NAMES.has(name)) {
        throw invalid(`${name} is a token claim and cannot name an item or a lease`);
      }
      // Checked as they come: a huge request stops here, not after splitting all of it.
      if (names.length >= maxItems) {
        throw invalid(`More than ${maxItems} items or lease ids in one request`);
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
        echo.process = value;
        break;
      case 'version':
        echo.version = value;
        break;
      case 'consumptionMode':
        if (!CONSUMPTION_MODES.has(value)) {
          throw invalid('consumptionMode must be cache or checkout');
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
      if (CLAIM_NAMES.has(leaseId)) {
        throw invalid(`${leaseId} is a token claim and cannot name a lease`);
      }
      if (ids.length >= maxItems) {
        throw invalid(`More than ${maxItems} items or lease ids in one request`);
      }
      ids.push(leaseId);
    }
    if (ids.length === 0) throw invalid('A release names no lease id');
    return { items: [], release: ids, echo };
  }
  if (names.length === 0) throw invalid('The request names no licensed item');
  if (leaseId !== undefined && names.length > 1) {
    throw invalid('leaseId applies to one item; use <item>=;leaseId=<id> per item');
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
