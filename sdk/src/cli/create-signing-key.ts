import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { describeApiError, fetchText } from './fetch-text.js';

/** Where and how to call the standby's management API. */
export interface ManagementAccess {
  /** Base URL of the standby. */
  url: URL;
  /** The management API key. */
  apiKey: string;
  /** Name of the API-key header (`Service-ApiKey` unless the vendor renamed it). */
  headerName: string;
}

/** A signing key and the root certificate it chains to. */
export interface StandbySigningKey {
  keyId: string;
  /** PEM of the key's root certificate. */
  rootCertificate: string;
}

/** `<base>/<path>`, whether or not the base URL ends in `/`. */
export function standbyEndpoint(base: URL, path: string): URL {
  return new URL(`${base.href.replace(/\/+$/, '')}/${path}`);
}

/**
 * Makes a new signing key on the standby (`POST /signing-keys` with the management API key). The
 * standby makes it its default at once; older keys stay usable. Refusals and malformed answers
 * are {@link CliError}s (exit code 1).
 *
 * @example
 * const { keyId, rootCertificate } = await createSigningKey({ url, apiKey, headerName: 'Service-ApiKey' }, io);
 */
export async function createSigningKey(
  access: ManagementAccess,
  io: CliIo,
): Promise<StandbySigningKey> {
  const endpoint = standbyEndpoint(access.url, 'signing-keys');
  const [response, body] = await fetchText(
    endpoint,
    { method: 'POST', headers: { [access.headerName]: access.apiKey, Accept: 'application/json' } },
    io,
  );
  if (response.status !== 201 && response.status !== 200) {
    throw new CliError(
      1,
      `the standby refused to make a signing key: ${describeApiError(response.status, body)}`,
    );
  }
  let parsed: Partial<Record<keyof StandbySigningKey, unknown>>;
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch (error) {
    throw new CliError(1, `the standby's answer is not JSON (HTTP ${response.status})`, {
      cause: error,
    });
  }
  if (typeof parsed.keyId !== 'string' || typeof parsed.rootCertificate !== 'string') {
    throw new CliError(1, "the standby's answer has no keyId and rootCertificate strings");
  }
  return { keyId: parsed.keyId, rootCertificate: parsed.rootCertificate };
}
