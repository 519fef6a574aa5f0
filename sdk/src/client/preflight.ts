// `client.preflight()`: finds a misconfiguration before the outage does (docs/app-integration.md,
// "Preflight in CI"). Each service is asked directly through the transport (no failover:
// both must be right), its JWK set goes through the service's key source as in any operation, and
// the lease store is read and written through the lease state. No seat is taken.
import type { Credentials } from '../auth/credentials.js';
import {
  ApiResponseError,
  isLicensingError,
  LicensingError,
  TokenInvalidError,
} from '../errors.js';
import { isStandbyEnabled } from '../failover/standby-status.js';
import { formatTime } from '../internal/format-time.js';
import { messageOf } from '../internal/message-of.js';
import { assertPathValidAt, ChainError } from '../lease/certificate-chain.js';
import { peekClaims } from '../lease/lease-token.js';
import type { VerifiedKey } from '../lease/signing-key-check.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import type { CallOptions, JwkSet, LicensingService } from '../types.js';
import type { ClientContext } from './client-context.js';
import { embedHint } from './embed-hint.js';
import type { PreflightCheck, PreflightCheckId, PreflightResult } from './licensing-client.js';
import type { ObservedStore } from './observed-store.js';

/** What preflight needs beyond the operations' context, passed down from the client. */
export interface PreflightSetup {
  mainUrl: string;
  standbyUrl: string;
  /** True with ID-token auth; false with a service key hash. */
  idTokenAuth: boolean;
  /** The client's credentials, the ones the transport sends. */
  credentials: Credentials;
  /** The lease store, as the lease state writes it. */
  store: ObservedStore;
}

const OPTION: Record<LicensingService, string> = { main: 'mainUrl', standby: 'standbyUrl' };

function passed(id: PreflightCheckId, message: string): PreflightCheck {
  return { id, ok: true, status: 'passed', message };
}

function skipped(id: PreflightCheckId, message: string): PreflightCheck {
  return { id, ok: true, status: 'skipped', message };
}

function failed(id: PreflightCheckId, message: string, error: LicensingError): PreflightCheck {
  return { id, ok: false, status: 'failed', message, error };
}

/** The error a check reports: the transport's verdict, or a LicensingError wrapping anything. */
function asLicensingError(error: unknown): LicensingError {
  const unwrapped = error instanceof FailedAttempt ? error.verdict.error : error;
  if (isLicensingError(unwrapped)) return unwrapped;
  return new LicensingError('SERVICE_UNAVAILABLE', messageOf(unwrapped), { cause: unwrapped });
}

/** Strips the final period so a message can go on. */
function clause(text: string): string {
  return text.replace(/\.\s*$/, '');
}

/** The `id-token` check: the provider gives a token now (asked even when one is cached). */
async function checkIdToken(setup: PreflightSetup, signal: AbortSignal | undefined) {
  const id = 'id-token';
  if (!setup.idTokenAuth) {
    try {
      await setup.credentials.authorization('main', { signal });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const cause = asLicensingError(error);
      return failed(
        id,
        `The service key hash could not be computed: ${clause(cause.message)}. Check auth.servicePublicKeyPem.`,
        cause,
      );
    }
    return skipped(
      id,
      'The client authenticates with a service key hash, so it needs no ID token. Nothing to check here.',
    );
  }
  let header: string;
  try {
    header = await setup.credentials.authorization('main', { signal, forceRefresh: true });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const cause = asLicensingError(error);
    return failed(id, `auth.idToken gave no usable ID token: ${cause.message}`, cause);
  }
  const claims = peekClaims(header.slice(header.indexOf(' ') + 1)) ?? {};
  const sub = typeof claims.sub === 'string' ? ` for ${claims.sub}` : '';
  const exp =
    typeof claims.exp === 'number' ? `, valid until ${formatTime(claims.exp * 1000)}` : '';
  return passed(id, `auth.idToken gave an ID token${sub}${exp}.`);
}

/** Why a service could not be asked, with what to check. */
function unreachable(service: LicensingService, url: string, error: unknown): PreflightCheck {
  const cause = asLicensingError(error);
  const option = `${OPTION[service]} (${url})`;
  const reason = error instanceof FailedAttempt ? error.verdict.reason : undefined;
  const what = `The ${service} licensing service`;
  let message: string;
  if (reason === 'malformed-body') {
    message = `${what} answered with something that is not a licensing service's answer (${clause(cause.message)}). Check ${option}: it must be the service's base URL, under which /authz/.jwt sits.`;
  } else if (cause.code === 'NOT_FOUND') {
    message = `${what} answered 404 (${clause(cause.message)}): there is no licensing service at that path. Check ${option}: it must be the service's base URL, under which /authz/.jwt sits.`;
  } else if (!(cause instanceof ApiResponseError) && cause.code !== 'SERVICE_UNAVAILABLE') {
    message = `${what} was not asked: the app has no credentials to send (${clause(cause.message)}). Fix the id-token check first.`;
  } else if (cause.code === 'UNAUTHORIZED' || cause.code === 'FORBIDDEN') {
    message = `${what} refused the app's credentials (${clause(cause.message)}). Check auth, and that the ${service} service trusts the app's identity provider and client id.`;
  } else if (cause.code === 'SERVICE_UNAVAILABLE') {
    message = `${what} could not be reached (${clause(cause.message)}). Check ${option}, the network, and that the service is up.`;
  } else {
    message = `${what} could not be checked (${clause(cause.message)}). Check ${option} and auth.`;
  }
  return failed(service, message, cause);
}

/**
 * The key a service signs leases with: the one the app pins (`signingKeyId`, standby), else the
 * first of its set (the services publish newest first, and the newest signs).
 */
function signingKid(jwks: JwkSet, pinned: string | undefined): string | undefined {
  if (pinned !== undefined) return pinned;
  const first = jwks.keys.find((jwk) => typeof jwk.kid === 'string' && jwk.kid !== '');
  return first?.kid as string | undefined;
}

/** The chain part of the `main` and `standby` checks, on the JWK set the service published. */
async function checkChain(
  context: ClientContext,
  setup: PreflightSetup,
  service: LicensingService,
  jwks: JwkSet,
): Promise<PreflightCheck> {
  const url = service === 'main' ? setup.mainUrl : setup.standbyUrl;
  const keys = context.keys[service];
  const pinned = service === 'standby' ? context.transport.signingKeyId : undefined;
  const kid = signingKid(jwks, pinned);
  const hint = embedHint(service, setup);
  if (kid === undefined) {
    return failed(
      service,
      `The ${service} service at ${url} publishes no signing key. Check ${OPTION[service]}, and that the service has a signing key.`,
      new TokenInvalidError('kid', `the ${service} service publishes no signing key`),
    );
  }
  let key: VerifiedKey;
  try {
    key = await keys.keyFor(kid, { fetch: false });
  } catch (error) {
    if (!(error instanceof TokenInvalidError)) throw error;
    if (!jwks.keys.some((jwk) => jwk.kid === kid)) {
      return failed(
        service,
        `The ${service} service at ${url} publishes no key ${kid}, the keyId of the embedded root: it signs with another key now. ${hint}`,
        error,
      );
    }
    return failed(service, error.message, error);
  }
  const root = key.validity.at(-1)?.subject ?? 'an embedded root';
  try {
    assertPathValidAt(key.validity, context.clock.now(), context.toleranceMs);
  } catch (cause) {
    const reason = cause instanceof ChainError ? cause.failure : 'chain';
    const error = new TokenInvalidError(
      reason,
      `the ${service} service's signing key ${kid}: ${messageOf(cause)}`,
      { cause },
    );
    return failed(
      service,
      `The ${service} service's signing key ${kid} chains to ${root}, but ${messageOf(cause)}: its leases will be refused. ${hint}`,
      error,
    );
  }
  return passed(
    service,
    `The ${service} service at ${url} answers, and its signing key ${kid} chains to the embedded root ${root}.`,
  );
}

async function checkMain(
  context: ClientContext,
  setup: PreflightSetup,
  signal: AbortSignal | undefined,
): Promise<PreflightCheck> {
  let jwks: JwkSet;
  try {
    jwks = { keys: await context.keys.main.refresh(signal) };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    return unreachable('main', setup.mainUrl, error);
  }
  return checkChain(context, setup, 'main', jwks);
}

async function checkStandby(
  context: ClientContext,
  setup: PreflightSetup,
  signal: AbortSignal | undefined,
): Promise<PreflightCheck> {
  const url = setup.standbyUrl;
  let enabled: boolean;
  try {
    enabled = await isStandbyEnabled(context.transport, signal ?? new AbortController().signal);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const reason = error instanceof FailedAttempt ? error.verdict.reason : undefined;
    const cause = asLicensingError(error);
    if (reason === 'malformed-body' || cause.code === 'NOT_FOUND') {
      return failed(
        'standby',
        `${url}/enabled does not answer as a standby does (the JSON true or false): ${clause(cause.message)}. Check standbyUrl (${url}): it must be the standby service's base URL.`,
        cause,
      );
    }
    return unreachable('standby', url, error);
  }
  if (!enabled) {
    return skipped(
      'standby',
      `The standby at ${url} answers as a standby does and is dormant (not enabled), so its signing key cannot be fetched: the chain is checked once it is enabled. Run preflight again while it is enabled (an outage drill) to check it.`,
    );
  }
  let jwks: JwkSet;
  try {
    jwks = { keys: await context.keys.standby.refresh(signal) };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    return unreachable('standby', url, error);
  }
  return checkChain(context, setup, 'standby', jwks);
}

/**
 * The `lease-store` check: read through the lease state (an unreadable store is never written),
 * then written with what the client holds: the state as it is, which is what its next change
 * would write anyway, so nothing is lost.
 */
async function checkLeaseStore(
  context: ClientContext,
  setup: PreflightSetup,
): Promise<PreflightCheck> {
  const id = 'lease-store';
  const status = await context.state.load();
  if (!status.trusted) {
    const { error } = status;
    const advice =
      error.reason === 'unreadable'
        ? 'It is not written until it can be read.'
        : 'restore() refuses it; the next checkout replaces it.';
    return failed(id, `${clause(error.message)}. ${advice} ${closing(error.reason)}`, error);
  }
  const mark = setup.store.mark();
  await context.state.persist();
  const outcome = setup.store.since(mark);
  if (outcome.count === 0 || 'error' in outcome) {
    const cause = outcome.count === 0 ? 'no write reached it' : messageOf(outcome.error);
    return failed(
      id,
      `The lease store could be read but not written (${cause}). Check that the app may write where leaseStore keeps its state (the file's folder, or the browser's storage quota).`,
      new LicensingError('LEASE_STORE_INVALID', `the lease store could not be written: ${cause}`, {
        reason: 'unwritable',
        cause: outcome.error,
      }),
    );
  }
  const count = context.state.leases().length;
  return passed(id, `The lease store was read (${count} saved lease(s)) and written.`);
}

function closing(reason: string): string {
  return reason === 'unreadable'
    ? 'Check that the app may read where leaseStore keeps its state.'
    : 'Check that nothing but the app writes to it, or clear it to start afresh.';
}

/**
 * Runs every check: `id-token` first (the other checks send its token), then `main` and
 * `standby` side by side, then `lease-store` (which writes). A failed check never rejects; an
 * abort does.
 *
 * @example
 * const { ok, checks } = await preflight(context, setup, {});
 * for (const check of checks) console.log(check.ok ? 'ok  ' : 'FAIL', check.id, check.message);
 */
export async function preflight(
  context: ClientContext,
  setup: PreflightSetup,
  options: CallOptions = {},
): Promise<PreflightResult> {
  const { signal } = options;
  signal?.throwIfAborted();
  const idToken = await checkIdToken(setup, signal);
  const [main, standby] = await Promise.all([
    checkMain(context, setup, signal),
    checkStandby(context, setup, signal),
  ]);
  signal?.throwIfAborted();
  const leaseStore = await checkLeaseStore(context, setup);
  const checks = [idToken, main, standby, leaseStore];
  return { ok: checks.every((check) => check.ok), checks };
}
