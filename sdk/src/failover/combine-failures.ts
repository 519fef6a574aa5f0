import { isLicensingError, LicensingError, type LicensingErrorCode } from '../errors.js';
import { messageOf } from '../internal/message-of.js';
import { FailedAttempt } from '../transport/failed-attempt.js';

/** Standby outcomes that keep their own code when both services failed. */
const KEPT_CODES: readonly LicensingErrorCode[] = [
  'STANDBY_DORMANT',
  'ID_TOKEN_EXPIRED',
  'UNAUTHORIZED',
];

/** The reasons of a final `SERVICE_UNAVAILABLE` that say the network is in the way. */
type NetworkReason = 'proxy' | 'tls';

/** Reason of the error that says main was skipped this call (its circuit is open). */
export const NOT_TRIED = 'circuit-open';

const ADVICE: Record<NetworkReason | 'service', string> = {
  proxy:
    'Every attempt failed at a proxy: check the proxy settings (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, or the `proxy` option) and the proxy user name and password.',
  tls: "Every attempt failed the TLS certificate check: if the network inspects TLS, add its CA certificate with the `tls.ca` option or NODE_EXTRA_CA_CERTS; otherwise check the services' certificates and this computer's clock.",
  service:
    "Retry later; if it persists, check `mainUrl`, `standbyUrl` and this computer's network.",
};

/**
 * `proxy` or `tls` when every attempt in `errors` failed that way (an attempt skipped because
 * main's circuit is open is no attempt), else undefined.
 */
export function sharedNetworkReason(errors: readonly unknown[]): NetworkReason | undefined {
  const reasons = errors
    .map((error) => (isLicensingError(error) ? error.reason : undefined))
    .filter((reason) => reason !== NOT_TRIED);
  const first = reasons[0];
  if ((first !== 'proxy' && first !== 'tls') || reasons.some((r) => r !== first)) return undefined;
  return first;
}

/** What to do after every attempt of a call failed: about the network when it was in the way. */
export function adviceFor(reason: NetworkReason | undefined): string {
  return ADVICE[reason ?? 'service'];
}

/** An error's message as a sentence (ending with a full stop). */
export function sentenceOf(error: unknown): string {
  const message = messageOf(error);
  return /[.!?]$/.test(message) ? message : `${message}.`;
}

/**
 * The first sentence of an error's message: what happened, without the advice that follows it
 * (the combined message ends with its own).
 */
export function headlineOf(error: unknown): string {
  const sentence = sentenceOf(error);
  const end = /\.\s+(?=[A-Z])/.exec(sentence);
  return end ? sentence.slice(0, end.index + 1) : sentence;
}

/**
 * The error of a call on which main failed and the standby did not help: code
 * `SERVICE_UNAVAILABLE` (or the standby's `STANDBY_DORMANT` / `ID_TOKEN_EXPIRED` /
 * `UNAUTHORIZED`), cause an `AggregateError` of every main attempt and the standby's failure.
 * `SERVICE_UNAVAILABLE` has `reason: 'proxy'` when every attempt failed at a proxy, `reason:
 * 'tls'` when every attempt failed the TLS check, and its message ends with what to check.
 * Errors that are not about reachability (e.g. `TOKEN_INVALID`) are returned unchanged.
 */
export function combineFailures(mainErrors: readonly unknown[], standbyError: unknown): unknown {
  const standby = standbyError instanceof FailedAttempt ? standbyError.verdict.error : standbyError;
  const kept = isLicensingError(standby) && KEPT_CODES.includes(standby.code);
  if (!(standbyError instanceof FailedAttempt) && !kept) return standby;
  const cause = new AggregateError([...mainErrors, standby], 'main and standby attempts');
  if (kept) {
    const { code } = standby as LicensingError;
    // The standby's message already ends with what to do.
    return new LicensingError(
      code,
      `The main licensing service failed and the standby refused: ${sentenceOf(standby)}`,
      { cause },
    );
  }
  const reason = sharedNetworkReason([...mainErrors, standby]);
  const main = mainErrors.length === 0 ? 'not tried.' : headlineOf(mainErrors.at(-1));
  // Each attempt's full message, with its own advice, stays in `cause`.
  return new LicensingError(
    'SERVICE_UNAVAILABLE',
    `Neither licensing service could serve the request. main: ${main} standby: ${headlineOf(standby)} ${adviceFor(reason)}`,
    { cause, ...(reason === undefined ? {} : { reason }) },
  );
}
