// Test helper: what a promise rejected with, for assertions on the error itself. Not a test file.

/**
 * The reason `promise` rejected with; an Error saying what it resolved to when it did not reject,
 * so the assertions on the reason fail with that in their message.
 */
export function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => new Error(`resolved instead of rejecting: ${JSON.stringify(value)?.slice(0, 300)}`),
    (error: unknown) => error,
  );
}
