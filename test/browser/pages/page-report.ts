// Shared by the page scripts: turns what the SDK returns or throws into plain data that crosses
// back to Node through `page.evaluate`.
import { isLicensingError } from '@standby-licensing/sdk';

/** An error as plain data: the SDK's fields, its causes (an AggregateError's errors) nested. */
export interface ErrorReport {
  name: string;
  message: string;
  licensingError: boolean;
  code?: string;
  reason?: string;
  status?: number;
  service?: string;
  error?: string;
  /** The errors of an AggregateError. */
  errors?: ErrorReport[];
  cause?: ErrorReport;
}

/** A call's outcome as plain data. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ErrorReport };

/** Describes `error` (four levels deep at most). */
export function reportError(error: unknown, depth = 0): ErrorReport {
  if (!(error instanceof Error)) {
    return { name: typeof error, message: String(error), licensingError: false };
  }
  const fields = error as Error & Partial<Record<'code' | 'reason' | 'service' | 'error', unknown>>;
  const report: ErrorReport = {
    name: error.name,
    message: error.message,
    licensingError: isLicensingError(error),
  };
  for (const key of ['code', 'reason', 'service', 'error'] as const) {
    if (typeof fields[key] === 'string') report[key] = fields[key];
  }
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') report.status = status;
  if (depth < 4) {
    if (error instanceof AggregateError) {
      report.errors = error.errors.map((inner) => reportError(inner, depth + 1));
    }
    if (error.cause !== undefined) report.cause = reportError(error.cause, depth + 1);
  }
  return report;
}

/** Runs `call`, reporting its value or its error. */
export async function outcome<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error: reportError(error) };
  }
}

/** Whether `fn` is the browser's own function, not a wrapper a script put in its place. */
export function isNative(fn: unknown): boolean {
  return (
    typeof fn === 'function' &&
    /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(fn))
  );
}
