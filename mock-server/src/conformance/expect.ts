import { CheckFailure } from './runner.js';

/** Fails the check with `message` unless `condition` holds. */
export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

/** Fails unless `actual` equals `expected` (JSON equality), naming `what`. */
export function ensureEqual(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new CheckFailure(`${what}: expected ${e}, got ${a}`);
}

/** Fails unless the response has `status`; shows the body on failure. */
export async function ensureStatus(res: Response, status: number, what: string): Promise<void> {
  if (res.status !== status) {
    const body = await res
      .clone()
      .text()
      .catch(() => '');
    throw new CheckFailure(
      `${what}: expected HTTP ${status}, got ${res.status} ${body.slice(0, 200)}`,
    );
  }
}

/**
 * Fails unless the response is an ApiError: the status, `application/json`, and a body with a
 * string `error` (equal to `error` when given).
 */
export async function ensureApiError(
  res: Response,
  status: number,
  error: string | undefined,
  what: string,
): Promise<void> {
  await ensureStatus(res, status, what);
  const type = res.headers.get('content-type') ?? '';
  ensure(type.includes('application/json'), `${what}: ApiError content type is ${type}`);
  const body = (await res.json()) as { error?: unknown; error_description?: unknown };
  ensure(
    typeof body.error === 'string',
    `${what}: body has no string "error": ${JSON.stringify(body)}`,
  );
  if (error !== undefined) ensureEqual(body.error, error, `${what}: ApiError.error`);
  if (body.error_description !== undefined) {
    ensure(
      typeof body.error_description === 'string',
      `${what}: error_description is not a string`,
    );
  }
}
