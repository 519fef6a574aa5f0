/** The ApiError fields of an error body (`{ error, error_description?, error_uri? }`). */
export interface ApiErrorFields {
  error?: string;
  errorDescription?: string;
}

/**
 * Reads the services' ApiError body (docs/protocol.md) from a response text: the string `error` and
 * `error_description` members when the text is a JSON object that has them, else nothing.
 * The SDK's only parser of error bodies.
 */
export function parseApiErrorBody(text: string): ApiErrorFields {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof body !== 'object' || body === null) return {};
  const { error, error_description } = body as Record<string, unknown>;
  return {
    ...(typeof error === 'string' ? { error } : {}),
    ...(typeof error_description === 'string' ? { errorDescription: error_description } : {}),
  };
}
