import { isLicensingError, LicensingError, type LicensingErrorCode } from '../errors.js';
import { FailedAttempt } from '../transport/failed-attempt.js';

/** Standby outcomes that keep their own code when both services failed. */
const KEPT_CODES: readonly LicensingErrorCode[] = [
  'STANDBY_DORMANT',
  'ID_TOKEN_EXPIRED',
  'UNAUTHORIZED',
];

/**
 * The error of a call on which main failed and the standby did not help: code
 * `SERVICE_UNAVAILABLE` (or the standby's `STANDBY_DORMANT` / `ID_TOKEN_EXPIRED` /
 * `UNAUTHORIZED`), cause an `AggregateError` of every main attempt and the standby's failure.
 * Errors that are not about reachability (e.g. `TOKEN_INVALID`) are returned unchanged.
 */
export function combineFailures(mainErrors: readonly unknown[], standbyError: unknown): unknown {
  const standby = standbyError instanceof FailedAttempt ? standbyError.verdict.error : standbyError;
  const kept = isLicensingError(standby) && KEPT_CODES.includes(standby.code);
  if (!(standbyError instanceof FailedAttempt) && !kept) return standby;
  const code: LicensingErrorCode = kept ? (standby as LicensingError).code : 'SERVICE_UNAVAILABLE';
  const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
  const message =
    code === 'SERVICE_UNAVAILABLE'
      ? `Neither licensing service could serve the request. main: ${
          mainErrors.length === 0 ? 'not tried' : messageOf(mainErrors.at(-1))
        }; standby: ${messageOf(standby)}`
      : `The main licensing service failed and the standby refused: ${messageOf(standby)}`;
  return new LicensingError(code, message, {
    cause: new AggregateError([...mainErrors, standby], 'main and standby attempts'),
  });
}
